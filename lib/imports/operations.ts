import { defineOperation, failure, ok, type ParameterSpec, paymentRequired } from "@/lib/http/operation";
import {
  IMPORT_FORMATS,
  importJsonFile,
  importListSchema,
  importReportQuery,
  importReportSchema,
  importSchema,
  MAX_IMPORT_COLUMNS,
  MAX_IMPORT_NESTING,
  MAX_IMPORT_ROW_CHARS,
  startImportQuery,
} from "./schemas";

const IMPORT_ID_PARAMETER = {
  name: "id",
  in: "path",
  required: true,
  description: "the import's id",
} as const satisfies ParameterSpec;

export const startImport = defineOperation({
  method: "post",
  path: "/api/imports",
  auth: "workspace",
  scope: "links:write",
  operationId: "startImport",
  summary: "Import links from another service",
  description:
    `Takes a CSV or JSON export from Bitly, Dub, Rebrandly, Short.io, Shlink, Kutt or any file with ` +
    `a destination column (long_url, url, destination, original_url, target…), and imports it as a ` +
    `background job: 202 with the job, then follow GET /api/imports/{id}. Each source's export is read ` +
    `by its own fields (format=auto recognises them): Bitly's link and long_url, Dub's shortLink (or ` +
    `domain and key) and url, Rebrandly's shortUrl (or domain and slashtag), Short.io's shortURL and ` +
    `originalURL, Shlink's shortUrl (or domain and shortCode) and longUrl, also its REST pages ` +
    `({shortUrls: {data}}), and Kutt's link (or domain, null for kutt.it, and address), target and ` +
    `description; tags may be names or objects with a name; archived and the creation date are carried. ` +
    `Headers are matched without regard to case, spaces and underscores. A code printed on a verified ` +
    `custom domain of this workspace keeps its exact slug there, so printed codes keep working once the ` +
    `domain points here; a code printed without its host (a generic file's slug column) goes to domain_id; ` +
    `a code of any other host becomes a new link of its own whose imported_from names it. Every row passes ` +
    `the same checks as POST /api/links (destination, safety, slug, plan allowance, write budget: the job ` +
    `waits for the budget rather than failing). Every entry ends created, kept (already here), merged (into ` +
    `an earlier row's link) or failed (with a sentence): see GET /api/imports/{id}/entries. Importing the ` +
    `same file again creates nothing: every code imported before is kept. dry_run=1 decides every row the ` +
    `same way without ` +
    `writing, and without looking names up (the real run also refuses a name that resolves to an ` +
    `internal address). At most 20 MB, 100,000 rows, ${MAX_IMPORT_COLUMNS} columns and ` +
    `${MAX_IMPORT_ROW_CHARS / 1024} KiB a row; JSON nested at most ${MAX_IMPORT_NESTING} deep. A workspace, and ` +
    `a person across their workspaces, have at most 2 imports under way at once (429 with Retry-After ` +
    `past that, or while the service is reading other files). ` +
    `Formats: ${IMPORT_FORMATS.join(", ")}.`,
  tag: "Links",
  write: true,
  query: startImportQuery,
  uploads: ["text/csv", { type: "application/json", schema: importJsonFile }],
  responses: {
    202: ok("The import was accepted and runs in the background.", importSchema),
    400: failure(
      "The file is not CSV or JSON, its quoting is broken, it has no destination column, its rows are too " +
        "wide or too long, its JSON nests too deep, or the query failed validation (an unknown format names the formats).",
    ),
    402: paymentRequired("The workspace has no active subscription (a dry run needs none)."),
    403: failure("Only owners, admins and the API key may import links."),
    404: failure("domain_id names no verified custom domain of this workspace."),
    413: failure("The file is over 20 MB or 100,000 rows."),
  },
});

export const getImport = defineOperation({
  method: "get",
  path: "/api/imports/{id}",
  auth: "workspace",
  scope: "links:read",
  operationId: "getImport",
  summary: "Follow an import",
  description: "The import's state (queued, running, done, failed), its counts and each failed row's error.",
  tag: "Links",
  parameters: [IMPORT_ID_PARAMETER],
  responses: {
    200: ok("The import.", importSchema),
    404: failure("No import with this id exists in this workspace."),
  },
});

export const listImports = defineOperation({
  method: "get",
  path: "/api/imports",
  auth: "workspace",
  scope: "links:read",
  operationId: "listImports",
  summary: "List imports",
  description: "The workspace's last 100 imports, most recent first.",
  tag: "Links",
  responses: { 200: ok("The imports.", importListSchema) },
});

export const cancelImport = defineOperation({
  method: "post",
  path: "/api/imports/{id}/cancel",
  auth: "workspace",
  scope: "links:write",
  write: true,
  operationId: "cancelImport",
  summary: "Cancel an import",
  description:
    "Stops an import that is queued or running, between two batches of rows: a queued import is cancelled at once; a " +
    "running one is cancelling until its job has saved the batch it is writing (at most 50 rows), then cancelled. " +
    "The import keeps the report of what was done (GET /api/imports/{id} and its entries); links already created stay.",
  tag: "Links",
  parameters: [IMPORT_ID_PARAMETER],
  responses: {
    200: ok("The import, cancelling (its job is saving the batch under way) or cancelled.", importSchema),
    403: failure("Only owners, admins and the API key may cancel imports."),
    404: failure("No import with this id exists in this workspace."),
    409: failure("The import has already finished."),
  },
});

export const importReport = defineOperation({
  method: "get",
  path: "/api/imports/{id}/entries",
  auth: "workspace",
  scope: "links:read",
  operationId: "getImportReport",
  summary: "An import's report, row by row",
  description:
    "Every entry of the import (a row of the file, or a further code a row printed, such as a Bitly custom " +
    "back-half), in file order, with what became of it: created (a new link), kept (already here: imported " +
    "before, or its code already holds a link to the same destination, or a link of the workspace has its " +
    "destination), merged (folded into the link an earlier row of this import made, named by merged_into_row) " +
    "or failed (with the API's sentence). The counts of the import add up to the entries handled. " +
    "Keyset-paginated; outcome= picks one outcome.",
  tag: "Links",
  parameters: [IMPORT_ID_PARAMETER],
  query: importReportQuery,
  responses: {
    200: ok("A page of the report.", importReportSchema),
    400: failure("The query failed validation, or the cursor is not one this list wrote."),
    404: failure("No import with this id exists in this workspace."),
  },
});
