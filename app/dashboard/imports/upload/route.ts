import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import * as importOperations from "@/lib/imports/operations";
import { importFileOf, startImport } from "@/lib/imports/service";

/** POST /api/imports for the signed-in dashboard (cookie session; from its own origin only): the file is the body, as there. */
export const POST = apiRoute(
  { ...importOperations.startImport, auth: "dashboard" },
  async ({ principal, query, request, reply }) => reply(202, await startImport(principal, query, () => importFileOf(request))),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
