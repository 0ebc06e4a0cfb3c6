import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import * as importOperations from "@/lib/imports/operations";
import { cancelImport } from "@/lib/imports/service";

/** POST /api/imports/{id}/cancel for the signed-in dashboard (cookie session; from its own origin only): the import page's Cancel button. */
export const POST = apiRoute({ ...importOperations.cancelImport, auth: "dashboard" }, async ({ principal, params, reply }) =>
  reply(200, await cancelImport(principal, params.id)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
