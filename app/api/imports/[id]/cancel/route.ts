import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import * as importOperations from "@/lib/imports/operations";
import { cancelImport } from "@/lib/imports/service";

export const POST = apiRoute(importOperations.cancelImport, async ({ principal, params, reply }) =>
  reply(200, await cancelImport(principal, params.id)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
