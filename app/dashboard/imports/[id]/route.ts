import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import * as importOperations from "@/lib/imports/operations";
import { getImport } from "@/lib/imports/service";

/** GET /api/imports/{id} for the signed-in dashboard: what the import page's progress bar follows. */
export const GET = apiRoute({ ...importOperations.getImport, auth: "dashboard" }, async ({ principal, params, reply }) =>
  reply(200, await getImport(principal, params.id)),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
