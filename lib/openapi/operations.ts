import { defineOperation } from "@/lib/http/operation";
import { z } from "zod";

export const getOpenApiDocument = defineOperation({
  method: "get",
  path: "/api/openapi.json",
  auth: "public",
  operationId: "getOpenApiDocument",
  summary: "This OpenAPI document",
  description: "The description of the API as OpenAPI 3.1; no credentials needed.",
  tag: "Meta",
  responses: { 200: { description: "The OpenAPI document.", body: z.looseObject({}) } },
});
