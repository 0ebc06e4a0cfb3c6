import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import * as importOperations from "@/lib/imports/operations";
import { importFileOf, listImports, startImport } from "@/lib/imports/service";

export const POST = apiRoute(importOperations.startImport, async ({ principal, query, request, reply }) =>
  reply(202, await startImport(principal, query, () => importFileOf(request))),
);

export const GET = apiRoute(importOperations.listImports, async ({ principal, reply }) =>
  reply(200, await listImports(principal)),
);

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
