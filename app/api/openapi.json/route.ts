import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { openApiDocument } from "@/lib/openapi/document";
import { getOpenApiDocument } from "@/lib/openapi/operations";

export const GET = apiRoute(getOpenApiDocument, async ({ reply }) =>
  reply(200, openApiDocument(), { "Cache-Control": "public, max-age=300" }),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
