import { json } from "@/lib/http/respond";

function unknownRoute(request: Request): Response {
  const { pathname } = new URL(request.url);
  return json({ error: `There is no API operation at ${request.method} ${pathname}; see /api/openapi.json.` }, 404);
}

export { unknownRoute as GET, unknownRoute as POST, unknownRoute as PUT, unknownRoute as PATCH, unknownRoute as DELETE };
