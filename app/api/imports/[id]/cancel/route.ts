import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { cancelImport as cancelImportOperation } from "@/lib/imports/operations";
import { cancelImport } from "@/lib/imports/service";

export const POST = apiRoute(cancelImportOperation, async ({ principal, params, reply }) =>
  reply(200, await cancelImport(principal, params.id)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
