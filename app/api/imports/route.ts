import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";
import { listImports as listImportsOperation, startImport as startImportOperation } from "@/lib/imports/operations";
import { listImports, startImport } from "@/lib/imports/service";

export const POST = apiRoute(startImportOperation, async ({ principal, query, request }) =>
  json(await startImport(principal, query, request), 202),
);

export const GET = apiRoute(listImportsOperation, async ({ principal }) => json(await listImports(principal)));

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
