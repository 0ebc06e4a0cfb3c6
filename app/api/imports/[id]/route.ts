import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import * as importOperations from "@/lib/imports/operations";
import { getImport } from "@/lib/imports/service";

export const GET = apiRoute(importOperations.getImport, async ({ principal, params, reply }) =>
  reply(200, await getImport(principal, params.id)),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
