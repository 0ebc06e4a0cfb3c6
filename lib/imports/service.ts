import { requireCreateEntitlement } from "@/lib/billing/entitlement";
import { isRecordId } from "@/lib/db/random";
import { readBinaryBody, validate } from "@/lib/http/body";
import { DomainError, notFound } from "@/lib/http/errors";
import { enforceWriteLimit } from "@/lib/http/write-limit";
import { log } from "@/lib/log";
import { importedLinkBody, type CreateLinkInput } from "@/lib/links/schemas";
import { createLink, ensureSlugAvailable, prepareLink } from "@/lib/links/service";
import { findRole } from "@/lib/workspaces/store";
import { requirePermission } from "@/lib/workspaces/permissions";
import type { Principal } from "@/lib/workspaces/types";
import { type ImportRow, parseImportFile } from "./parser";
import { type ImportFormat, type ImportView, MAX_IMPORT_BYTES, type StartImportQuery, TOO_LARGE_SENTENCE } from "./schemas";
import * as store from "./store";
import type { ImportRecord, RowError } from "./store";
import type { DbClient } from "@/lib/db/client";
import { announceEvent } from "@/lib/webhooks/outbox";

const LEASE_MS = 30_000;
const BATCH_ROWS = 50;
/** Rows of a batch imported at once: a row's time is mostly spent waiting on the database and DNS. */
const CONCURRENT_ROWS = 8;

/** An import's file as sent: its text and whether it is CSV or JSON. */
export type ImportFile = { text: string; mediaType: "csv" | "json" };

/**
 * Starts an import as a background job and answers at once with its state (202). The file is read
 * after the caller's checks (readFile: the HTTP body, or start_import's argument).
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
  const { text, mediaType } = await readFile();
  const rows = parseImportFile(text, mediaType, query.format);
  const record = await store.insertImport({
    workspaceId: principal.workspaceId,
    userId: principal.kind === "session" ? principal.userId : null,
    format: query.format,
    domainId: query.domain_id ?? null,
    dryRun: query.dry_run,
    source: JSON.stringify(rows),
    total: rows.length,
  });
  resume(record.id);
  return toImportView(record);
}

export async function getImport(principal: Principal, id: string): Promise<ImportView> {
  requirePermission(principal, "links.read", "Your role in this workspace does not allow reading imports.");
  const record = isRecordId(id) ? await store.findImport(principal.workspaceId, id) : null;
  if (!record) throw notFound("No import with this id exists in this workspace.");
  await resumeInterrupted(principal.workspaceId);
  return toImportView(record);
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

function resume(id: string): void {
  runImport(id).catch((error) => log().error({ err: error, importId: id }, "import job failed"));
}

/** Runs the job from its next row; returns without doing anything when another job holds the import. */
export async function runImport(id: string): Promise<void> {
  const record = await store.claimImport(id, LEASE_MS);
  if (!record || record.source === null) return;
  const principal = await principalOf(record);
  if (!principal) {
    await store.finishImport(id, "failed", announceFinished, {
      row: 0,
      error: "The person who started this import is no longer a member of the workspace.",
    });
    return;
  }
  const rows = JSON.parse(record.source) as ImportRow[];
  const domains = await store.verifiedDomains(record.workspaceId);
  const context: RowContext = { principal, record, domains, destinationsDone: new Set() };
  for (let start = record.nextRow; start < rows.length; start += BATCH_ROWS) {
    const batch = {
      nextRow: Math.min(start + BATCH_ROWS, rows.length),
      created: 0,
      skipped: 0,
      failed: 0,
      errors: [] as RowError[],
    };
    for (const outcome of await importBatch(context, rows.slice(start, batch.nextRow))) {
      if (typeof outcome === "string") batch[outcome]++;
      else {
        batch.failed++;
        batch.errors.push(outcome);
      }
    }
    await store.saveProgress(id, batch, LEASE_MS);
  }
  await store.finishImport(id, "done", announceFinished);
}

/** import.finished, written with the import's last state. */
function announceFinished(client: DbClient, record: ImportRecord): Promise<void> {
  return announceEvent(client, record.workspaceId, "import.finished", toImportView(record));
}

type RowContext = {
  principal: Principal;
  record: ImportRecord;
  domains: Map<string, string>;
  /** Destinations of rows without a short link that this run already made or found: the same-destination rule answers the same again. */
  destinationsDone: Set<string>;
};

type RowOutcome = "created" | "skipped" | RowError;

/**
 * A batch's rows several at a time, each with the outcome it would have had in file order: a row
 * sharing its original short URL, slug or destination with an earlier row of the batch waits until
 * the others are done, so rows already imported, a taken slug and the same-destination rule decide
 * between those rows as they would one after another.
 */
async function importBatch(context: RowContext, rows: ImportRow[]): Promise<RowOutcome[]> {
  const seen = new Set<string>();
  const independent: number[] = [];
  const dependent: number[] = [];
  rows.forEach((row, index) => {
    const keys = rowKeys(row);
    (keys.some((key) => seen.has(key)) ? dependent : independent).push(index);
    for (const key of keys) seen.add(key);
  });
  const outcomes: RowOutcome[] = new Array(rows.length);
  await concurrently(independent, CONCURRENT_ROWS, async (index) => {
    outcomes[index] = await importRow(context, rows[index]!);
  });
  for (const index of dependent) outcomes[index] = await importRow(context, rows[index]!);
  return outcomes;
}

function rowKeys(row: ImportRow): string[] {
  const origin = originOf(row.shortLink);
  return [`destination:${row.destination}`, origin.url && `url:${origin.url}`, origin.slug && `slug:${origin.slug}`].filter(
    (key): key is string => Boolean(key),
  );
}

/** Runs `work` on every item, at most `width` at a time; the first failure is thrown once all have stopped. */
async function concurrently<Item>(items: Item[], width: number, work: (item: Item) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async () => {
    while (next < items.length && !failure) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  if (failure) throw (failure as { error: unknown }).error;
}

/** One row through the same service as POST /api/links; its refusal is the row's error, in the API's sentence. */
async function importRow(context: RowContext, row: ImportRow): Promise<RowOutcome> {
  const { principal, record } = context;
  try {
    const origin = originOf(row.shortLink);
    if (origin.url && (await store.isImported(record.workspaceId, origin.url))) return "skipped";
    if (!row.shortLink && context.destinationsDone.has(row.destination)) return "skipped";
    const domainId = (origin.host && context.domains.get(origin.host)) || record.domainId;
    const input: CreateLinkInput = validate(
      importedLinkBody,
      {
        destination: row.destination,
        ...(domainId && origin.slug && { slug: origin.slug, domain_id: domainId }),
        ...(row.title && { title: row.title }),
        ...(row.tags.length > 0 && { tags: row.tags }),
      },
      "body",
    );
    if (record.dryRun) {
      await ensureSlugAvailable(await prepareLink(record.workspaceId, input));
      if (!row.shortLink) context.destinationsDone.add(row.destination);
      return "created";
    }
    await spendWrite(record.workspaceId);
    const { created } = await createLink(principal, input, { importedFrom: origin.url });
    if (!row.shortLink) context.destinationsDone.add(row.destination);
    return created ? "created" : "skipped";
  } catch (error) {
    if (error instanceof DomainError) return { row: row.row, error: error.message };
    throw error;
  }
}

/** The job paces itself on the workspace's write budget: refused, it waits as long as the budget says and asks again. */
async function spendWrite(workspaceId: string): Promise<void> {
  for (;;) {
    try {
      return await enforceWriteLimit(workspaceId);
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== "rate_limited") throw error;
      const seconds = Number(error.headers["Retry-After"] ?? "1");
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, seconds) * 1000));
    }
  }
}

/** bit.ly/abc, https://go.example.com/menu or a bare code: the original short URL, its host and its slug. */
function originOf(shortLink: string | null): { url: string | null; host: string | null; slug: string | null } {
  if (!shortLink) return { url: null, host: null, slug: null };
  if (!/[./]/.test(shortLink)) return { url: null, host: null, slug: shortLink };
  try {
    const url = new URL(/^https?:\/\//i.test(shortLink) ? shortLink : `https://${shortLink}`);
    const slug = decodeURIComponent(url.pathname.slice(1)) || null;
    return { url: `${url.host}${url.pathname}`, host: url.hostname, slug };
  } catch {
    return { url: shortLink, host: null, slug: null };
  }
}

async function principalOf(record: ImportRecord): Promise<Principal | null> {
  // An API key's import runs as the workspace's key: creating a link reads only the workspace from it.
  if (!record.userId) return { kind: "api_key", apiKeyId: "", workspaceId: record.workspaceId };
  const role = await findRole(record.workspaceId, record.userId);
  return role ? { kind: "session", userId: record.userId, workspaceId: record.workspaceId, role } : null;
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

function toImportView(record: ImportRecord): ImportView {
  return {
    id: record.id,
    status: record.status as ImportView["status"],
    format: record.format as ImportFormat,
    dry_run: record.dryRun,
    total: record.total,
    processed: record.nextRow,
    created: record.created,
    skipped: record.skipped,
    failed: record.failed,
    errors: record.errors as RowError[],
    created_at: record.createdAt.getTime(),
    finished_at: record.finishedAt?.getTime() ?? null,
  };
}
