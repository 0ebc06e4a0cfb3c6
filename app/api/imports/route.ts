import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { listImports as listImportsOperation, startImport as startImportOperation } from "@/lib/imports/operations";
import { importFileOf, listImports, startImport } from "@/lib/imports/service";

export const POST = apiRoute(startImportOperation, async ({ principal, query, request, reply }) =>
  reply(202, await startImport(principal, query, () => importFileOf(request))),
);

export const GET = apiRoute(listImportsOperation, async ({ principal, reply }) => reply(200, await listImports(principal)));

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
