import { requireCreateEntitlement } from "@/lib/billing/entitlement";
import { isRecordId } from "@/lib/db/random";
import { readBinaryBody, validate } from "@/lib/http/body";
import { DomainError, notFound } from "@/lib/http/errors";
import { requirePermission } from "@/lib/workspaces/permissions";
import type { Principal } from "@/lib/workspaces/types";
import { readingFile } from "./capacity";
import { resume } from "./job";
import { parseImportFile, storedRows } from "./parser";
import { firstCursor, requireOptionsOf, sealPeerToken } from "./peers";
import {
  type ImportReportQuery,
  type ImportReportView,
  type ImportView,
  MAX_IMPORT_BYTES,
  MAX_REPORT_PAGE,
  peerImportRequest,
  type PeerImportRequest,
  type StartImportQuery,
  TOO_LARGE_SENTENCE,
} from "./schemas";
import * as store from "./store";
import { toEntryView, toImportView } from "./view";
/** Unfinished imports at once in a workspace, and for one person across their workspaces. */
const UNFINISHED_PER_WORKSPACE = 2;
const UNFINISHED_PER_PERSON = 2;
const BUSY_RETRY_SECONDS = 30;

/** An import's file as sent: its text and whether it is CSV or JSON. */
export type ImportFile = { text: string; mediaType: "csv" | "json" };

/**
 * Starts an import as a background job and answers at once with its state (202). The file is read
 * after the caller's checks (readFile: the HTTP body, or start_import's argument). A small JSON
 * object with a token ({source, token}) is no file: the job pages through that peer's API with
 * the key (lib/imports/peers.ts), kept sealed until the last page is read.
 */
export async function startImport(
  principal: Principal,
  query: StartImportQuery,
  readFile: () => Promise<ImportFile>,
): Promise<ImportView> {
  requirePermission(principal, "links.edit_any", "Only owners, admins and the API key may import links.");
  if (!query.dry_run) await requireCreateEntitlement(principal.workspaceId);
  if (query.domain_id && !(await isVerifiedDomainOf(principal.workspaceId, query.domain_id))) {
    throw notFound("The domain_id names no verified custom domain of this workspace.");
  }
  await requireRoomForImport(principal);
  const { text, mediaType } = await readFile();
  const fromPeer = peerRequestOf(text, mediaType);
  const started = {
    workspaceId: principal.workspaceId,
    userId: principal.kind === "session" ? principal.userId : null,
    domainId: query.domain_id ?? null,
    dryRun: query.dry_run,
  };
  let record;
  if (fromPeer) {
    if (query.format !== "auto" && query.format !== fromPeer.source)
      throw new DomainError(
        "invalid_request",
        `format=${query.format} does not match the source ${fromPeer.source}: leave format out.`,
      );
    requireOptionsOf(fromPeer);
    record = await store.insertImport({
      ...started,
      format: fromPeer.source,
      source: "",
      total: 0,
      peer: { tokenSealed: sealPeerToken(fromPeer.token), cursor: firstCursor(fromPeer) },
    });
  } else {
    const rows = await readingFile(() => parseImportFile(text, mediaType, query.format));
    record = await store.insertImport({ ...started, format: query.format, source: await storedRows(rows), total: rows.length });
  }
  resume(record.id);
  return toImportView(record);
}

/** A request to import by API token is a small JSON object with a token; anything else is a file. */
const MAX_PEER_REQUEST_CHARS = 4096;

function peerRequestOf(text: string, mediaType: "csv" | "json"): PeerImportRequest | null {
  if (mediaType !== "json" || text.length > MAX_PEER_REQUEST_CHARS || !text.trimStart().startsWith("{")) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== "object" || !("token" in parsed)) return null;
  return validate(peerImportRequest, parsed, "body");
}

/** A workspace, and a person across every workspace they are in, runs a bounded number of imports at once. */
async function requireRoomForImport(principal: Principal): Promise<void> {
  const unfinished = await store.unfinishedImports(principal.workspaceId, principal.kind === "session" ? principal.userId : null);
  const busy =
    unfinished.workspace >= UNFINISHED_PER_WORKSPACE
      ? `This workspace already has ${UNFINISHED_PER_WORKSPACE} imports under way`
      : unfinished.person >= UNFINISHED_PER_PERSON
        ? `You already have ${UNFINISHED_PER_PERSON} imports under way`
        : null;
  if (busy) {
    throw new DomainError("rate_limited", `${busy}; start this one when one of them is done.`, {
      "Retry-After": String(BUSY_RETRY_SECONDS),
    });
  }
}

export async function getImport(principal: Principal, id: string): Promise<ImportView> {
  requirePermission(principal, "links.read", "Your role in this workspace does not allow reading imports.");
  const record = isRecordId(id) ? await store.findImport(principal.workspaceId, id) : null;
  if (!record) throw notFound("No import with this id exists in this workspace.");
  await resumeInterrupted(principal.workspaceId);
  return toImportView(record);
}

export async function cancelImport(principal: Principal, id: string): Promise<ImportView> {
  requirePermission(principal, "links.edit_any", "Only owners, admins and the API key may cancel imports.");
  const existing = isRecordId(id) ? await store.findImport(principal.workspaceId, id) : null;
  if (!existing) throw notFound("No import with this id exists in this workspace.");
  const cancelled = await store.cancelImport(principal.workspaceId, id);
  if (!cancelled) throw new DomainError("conflict", `The import has already finished (${existing.status}).`);
  return toImportView(cancelled);
}

export async function listImports(principal: Principal): Promise<{ imports: ImportView[] }> {
  requirePermission(principal, "links.read", "Your role in this workspace does not allow reading imports.");
  await resumeInterrupted(principal.workspaceId);
  return { imports: (await store.listImports(principal.workspaceId)).map(toImportView) };
}

/** A job a restart interrupted holds no lease any more: whoever looks at the workspace's imports starts it again where it stopped. */
async function resumeInterrupted(workspaceId: string): Promise<void> {
  for (const id of await store.resumableImports(workspaceId)) resume(id);
}

/** The import's report, in file order: every entry and what became of it (created, kept, merged, failed). */
export async function importReport(principal: Principal, id: string, query: ImportReportQuery): Promise<ImportReportView> {
  requirePermission(principal, "links.read", "Your role in this workspace does not allow reading imports.");
  const record = isRecordId(id) ? await store.findImport(principal.workspaceId, id) : null;
  if (!record) throw notFound("No import with this id exists in this workspace.");
  const limit = query.limit ?? MAX_REPORT_PAGE;
  const after = query.cursor ? store.entryCursor.read(query.cursor) : undefined;
  const entries = await store.pageOfEntries(id, { outcome: query.outcome }, limit, after);
  return { entries: entries.map(toEntryView), next_cursor: store.entryCursor.next(entries, limit) };
}

async function isVerifiedDomainOf(workspaceId: string, domainId: string): Promise<boolean> {
  return [...(await store.verifiedDomains(workspaceId)).values()].includes(domainId);
}

function importMediaType(contentType: string | null): "csv" | "json" {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "text/csv" || type === "application/csv") return "csv";
  if (type === "application/json") return "json";
  throw new DomainError("invalid_request", "Send the file as text/csv or application/json (a CSV or JSON export of your links).");
}

/** The file an HTTP import sends as its body, typed by its Content-Type. */
export async function importFileOf(request: Request): Promise<ImportFile> {
  const mediaType = importMediaType(request.headers.get("content-type"));
  return { mediaType, text: await readBody(request) };
}

async function readBody(request: Request): Promise<string> {
  try {
    return (await readBinaryBody(request, MAX_IMPORT_BYTES)).toString("utf8");
  } catch (error) {
    if (error instanceof DomainError && error.code === "too_large") throw new DomainError("too_large", TOO_LARGE_SENTENCE);
    throw error;
  }
}
