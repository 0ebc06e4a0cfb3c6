import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";

/** Any path under /api that no operation claims: a 404 with the usual body, for every method (OPTIONS too: there is nothing to list). */
const unknownRoute = apiRoute({ auth: "public", path: "/api/{path}" }, async ({ request }) => {
  const { pathname } = new URL(request.url);
  return json({ error: `There is no API operation at ${request.method} ${pathname}; see /api/openapi.json.` }, 404);
});

export {
  unknownRoute as GET,
  unknownRoute as POST,
  unknownRoute as PUT,
  unknownRoute as PATCH,
  unknownRoute as DELETE,
  unknownRoute as OPTIONS,
};
