import { defineOperation, failure, RATE_LIMIT_HEADERS } from "@/lib/http/operation";
import { exportLinksQuery, linkExportSchema } from "./schemas";

export const exportLinks = defineOperation({
  method: "get",
  path: "/api/links/export",
  auth: "workspace",
  scope: "links:read",
  operationId: "exportLinks",
  summary: "Export every link",
  description:
    "Every link of the workspace, archived ones included, most recent first, streamed as it is read: " +
    "id, short_url, slug, host, destination, status, tags, title, created_at, archived_at (ISO " +
    "8601), imported_from, scan_limit_after, scan_limit_destination, password_protected and scans_30d; " +
    "JSON also carries each link's history (every recorded change, newest first). " +
    "CSV (default) has one header line and writes any cell a spreadsheet would take for a formula " +
    "(starting with =, +, -, @, tab or carriage return) with a leading single quote; tags are joined " +
    "with commas and the status is written by name (active, quarantine, abuse; JSON keeps the integer). Readable by every role and without a " +
    "subscription. At most 10 exports a minute per credential and 30 per client network (429 with Retry-After).",
  tag: "Links",
  query: exportLinksQuery,
  responses: {
    200: {
      description:
        "The links, as a CSV file or a JSON document {links: [...]} whose links carry their history, sent as an attachment.",
      body: linkExportSchema,
      files: ["text/csv"],
      headers: { "Content-Disposition": "ContentDisposition" },
    },
    400: failure("The query string failed validation."),
    429: failure(
      "More than 10 exports this minute with this credential, or 30 from your network; Retry-After says when to try again.",
      RATE_LIMIT_HEADERS,
    ),
  },
});
