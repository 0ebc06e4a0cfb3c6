import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { getOpenApiDocument, openApiDocument } from "@/lib/openapi/document";

export const GET = apiRoute(getOpenApiDocument, async () =>
  Response.json(openApiDocument(), { headers: { "Cache-Control": "public, max-age=300" } }),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
