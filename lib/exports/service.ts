import { scansPerLinkSince } from "@/lib/analytics/store/reads";
import { clock, DAY_MS, utcDayStart } from "@/lib/clock";
import { type CsvCell, csvRow } from "@/lib/http/csv";
import { enforceReadBudget, type ReadBudget } from "@/lib/http/write-limit";
import { shortUrl, tagNamesOf } from "@/lib/links/present";
import { previewOf } from "@/lib/links/preview";
import { allLinkPages } from "@/lib/links/service";
import { asLinkStatus, STATUS_NAMES } from "@/lib/links/status";
import type { LinkRow } from "@/lib/links/store";
import type { Principal } from "@/lib/workspaces/types";
import type { ExportedLink, ExportFormat } from "./schemas";

const SCAN_WINDOW_DAYS = 30;

const CSV_HEADER: readonly (keyof ExportedLink)[] = [
  "id",
  "short_url",
  "slug",
  "host",
  "destination",
  "status",
  "tags",
  "title",
  "created_at",
  "archived_at",
  "imported_from",
  "scan_limit_after",
  "scan_limit_destination",
  "password_protected",
  "preview_title",
  "preview_description",
  "preview_image_url",
  "preview_count",
  "scans_30d",
];

const MEDIA_TYPES = { csv: "text/csv; charset=utf-8", json: "application/json" } as const;

/**
 * Exports a minute: one reads every link of the workspace and its scans, so a credential, or a
 * client network whoever signs, is held to a few.
 */
const EXPORTS: ReadBudget = { name: "exports", perCredential: 10, perNetwork: 30, reads: "exports" };

/** The export as the attachment both doors send (the API's route and the dashboard's button), within the read budget. */
export async function exportDownload(principal: Principal, format: ExportFormat, clientNetwork: string): Promise<Response> {
  await enforceReadBudget(EXPORTS, principal, clientNetwork);
  return new Response(exportLinks(principal, format), {
    headers: {
      "Content-Type": MEDIA_TYPES[format],
      "Content-Disposition": `attachment; filename="links.${format}"`,
      "Cache-Control": "no-store",
    },
  });
}

/**
 * The workspace's links as a stream of text: one page of links is read, written and let go before
 * the next is read, so memory stays the same whatever the number of links.
 */
export function exportLinks(principal: Principal, format: ExportFormat): ReadableStream<Uint8Array> {
  const since = scanWindowStart();
  const pages = allLinkPages(principal);
  const encoder = new TextEncoder();
  let started = false;
  let first = true;
  return new ReadableStream({
    async pull(controller) {
      const opening = started ? "" : format === "csv" ? csvRow(CSV_HEADER) : '{"links":[';
      started = true;
      const next = await pages.next();
      if (next.done) {
        controller.enqueue(encoder.encode(opening + (format === "csv" ? "" : "]}\n")));
        controller.close();
        return;
      }
      const rows = await exportedRows(principal.workspaceId, next.value, since);
      const text =
        format === "csv"
          ? rows.map((row) => csvRow(CSV_HEADER.map((column) => csvCell(row, column)))).join("")
          : rows.map((row) => `${first ? ((first = false), "") : ","}${JSON.stringify(row)}`).join("");
      controller.enqueue(encoder.encode(opening + text));
    },
    async cancel() {
      await pages.return(undefined);
    },
  });
}

/**
 * Tags as one cell, separated by commas; a yes-or-no as true or false; the status by its name
 * (a spreadsheet is read by people; the JSON export keeps the API's integer).
 */
function csvCell(row: ExportedLink, column: keyof ExportedLink): CsvCell {
  if (column === "status") return STATUS_NAMES[asLinkStatus(row.status)];
  const value = row[column];
  if (Array.isArray(value)) return value.join(", ");
  return typeof value === "boolean" ? String(value) : value;
}

async function exportedRows(workspaceId: string, links: LinkRow[], since: Date): Promise<ExportedLink[]> {
  const scans = await scansPerLinkSince(
    workspaceId,
    links.map((link) => link.id),
    since,
  );
  return links.map((link) => ({
    id: link.id,
    short_url: shortUrl(link),
    slug: link.slug,
    host: link.host,
    destination: link.destination,
    status: link.status,
    tags: tagNamesOf(link),
    title: link.title,
    created_at: link.createdAt.toISOString(),
    archived_at: link.archivedAt?.toISOString() ?? null,
    imported_from: link.importedFrom,
    scan_limit_after: link.scanLimitAfter,
    scan_limit_destination: link.scanLimitDestination,
    password_protected: link.passwordHash !== null,
    preview_title: link.previewTitle,
    preview_description: link.previewDescription,
    preview_image_url: previewOf(link)?.image_url ?? null,
    preview_count: link.previewCount,
    scans_30d: scans.get(link.id) ?? 0,
  }));
}

/** The start of the UTC day 29 days ago: the last 30 days, today included. */
function scanWindowStart(): Date {
  const today = utcDayStart(clock().now());
  return new Date(today - (SCAN_WINDOW_DAYS - 1) * DAY_MS);
}
