import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import * as importOperations from "@/lib/imports/operations";
import { importReport } from "@/lib/imports/service";

export const GET = apiRoute(importOperations.importReport, async ({ principal, params, query, reply }) =>
  reply(200, await importReport(principal, params.id, query)),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
