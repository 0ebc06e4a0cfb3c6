import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { importReport as importReportOperation } from "@/lib/imports/operations";
import { importReport } from "@/lib/imports/service";

export const GET = apiRoute(importReportOperation, async ({ principal, params, query, reply }) =>
  reply(200, await importReport(principal, params.id, query)),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
