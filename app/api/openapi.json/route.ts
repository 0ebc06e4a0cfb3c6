import { openApiDocument } from "@/lib/http/openapi";
import { internalError } from "@/lib/http/respond";

export function GET(): Response {
  try {
    return Response.json(openApiDocument(), { headers: { "Cache-Control": "public, max-age=300" } });
  } catch (error) {
    return internalError(error);
  }
}
