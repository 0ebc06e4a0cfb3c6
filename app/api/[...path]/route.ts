import { apiRoute } from "@/lib/api/route";
import { failure } from "@/lib/http/operation";

/** Any path under /api that no operation claims: a 404 with the usual body, for every method (OPTIONS too: there is nothing to list). */
const unknownRoute = apiRoute(
  { auth: "public", path: "/api/{path}", responses: { 404: failure("No API operation at this method and path.") } },
  async ({ request, reply }) => {
    const { pathname } = new URL(request.url);
    return reply(404, { error: `There is no API operation at ${request.method} ${pathname}; see /api/openapi.json.` });
  },
);

export {
  unknownRoute as DELETE,
  unknownRoute as GET,
  unknownRoute as OPTIONS,
  unknownRoute as PATCH,
  unknownRoute as POST,
  unknownRoute as PUT,
};
