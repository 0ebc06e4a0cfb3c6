import { scansPerLinkSince } from "@/lib/analytics/store/reads";
import { clock, DAY_MS, utcDayStart } from "@/lib/clock";
import { type CsvCell, csvRow } from "@/lib/http/csv";
import { enforceReadBudget, type ReadBudget } from "@/lib/http/write-limit";
import { historyOfLinkPage } from "@/lib/links/history";
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

/** Text gathered before it is handed to the stream: enough to keep writes few, little enough to keep memory flat. */
const CHUNK_CHARS = 64 * 1024;

/**
 * The workspace's links as a stream of text: one page of links is read, written and let go before
 * the next is read, so memory stays the same whatever the number of links. JSON carries each
 * link's history (newest first), read in bounded pieces beside its page.
 */
export function exportLinks(principal: Principal, format: ExportFormat): ReadableStream<Uint8Array> {
  const text = format === "csv" ? csvText(principal) : jsonText(principal);
  const encoder = new TextEncoder();
  return new ReadableStream({
    async pull(controller) {
      let chunk = "";
      while (chunk.length < CHUNK_CHARS) {
        const next = await text.next();
        if (next.done) {
          if (chunk) controller.enqueue(encoder.encode(chunk));
          controller.close();
          return;
        }
        chunk += next.value;
      }
      controller.enqueue(encoder.encode(chunk));
    },
    async cancel() {
      await text.return(undefined);
    },
  });
}

async function* csvText(principal: Principal): AsyncGenerator<string> {
  const since = scanWindowStart();
  const pages = allLinkPages(principal);
  try {
    let header = csvRow(CSV_HEADER);
    for await (const page of pages) {
      const rows = await exportedRows(principal.workspaceId, page, since);
      yield header + rows.map((row) => csvRow(CSV_HEADER.map((column) => csvCell(row, column)))).join("");
      header = "";
    }
    if (header) yield header;
  } finally {
    await pages.return(undefined);
  }
}

/** `{"links":[…]}`, each link's object closed only once its history's last piece is written. */
async function* jsonText(principal: Principal): AsyncGenerator<string> {
  const since = scanWindowStart();
  const pages = allLinkPages(principal);
  try {
    yield '{"links":[';
    let separator = "";
    for await (const page of pages) {
      const rows = new Map((await exportedRows(principal.workspaceId, page, since)).map((row) => [row.id, row]));
      let open: string | null = null;
      let entrySeparator = "";
      for await (const piece of historyOfLinkPage(principal, page)) {
        if (piece.linkId !== open) {
          if (open !== null) yield "]}";
          yield `${separator}${JSON.stringify(rows.get(piece.linkId)).slice(0, -1)},"history":[`;
          [open, separator, entrySeparator] = [piece.linkId, ",", ""];
        }
        for (const entry of piece.entries) {
          yield entrySeparator + JSON.stringify(entry);
          entrySeparator = ",";
        }
      }
      if (open !== null) yield "]}";
    }
    yield "]}\n";
  } finally {
    await pages.return(undefined);
  }
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
