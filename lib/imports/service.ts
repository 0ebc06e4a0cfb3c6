import { requireCreateEntitlement } from "@/lib/billing/entitlement";
import { isRecordId, newSecretToken } from "@/lib/db/random";
import { readBinaryBody, validate } from "@/lib/http/body";
import { DomainError, notFound } from "@/lib/http/errors";
import { enforceWriteLimit } from "@/lib/http/write-limit";
import { log } from "@/lib/log";
import { importedLinkBody, type CreateLinkInput } from "@/lib/links/schemas";
import { createLink, ensureSlugAvailable, prepareLink } from "@/lib/links/service";
import { findRole } from "@/lib/workspaces/store";
import { requirePermission } from "@/lib/workspaces/permissions";
import type { Principal } from "@/lib/workspaces/types";
import { readingFile, rowTurn, runningJob } from "./capacity";
import { type ImportRow, parseImportFile, rowsFromStore, storedRows } from "./parser";
import { type ImportFormat, type ImportView, MAX_IMPORT_BYTES, type StartImportQuery, TOO_LARGE_SENTENCE } from "./schemas";
import * as store from "./store";
import type { ImportRecord, RowError } from "./store";
import type { DbClient } from "@/lib/db/client";
import { announceEvent } from "@/lib/webhooks/outbox";

const LEASE_MS = 30_000;
const BATCH_ROWS = 50;
/** Rows of a batch imported at once: a row's time is mostly spent waiting on the database and DNS. */
const CONCURRENT_ROWS = 8;
/** Unfinished imports at once in a workspace, and for one person across their workspaces. */
const UNFINISHED_PER_WORKSPACE = 2;
const UNFINISHED_PER_PERSON = 2;
const BUSY_RETRY_SECONDS = 30;

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
  await requireRoomForImport(principal);
  const { text, mediaType } = await readFile();
  const rows = await readingFile(() => parseImportFile(text, mediaType, query.format));
  const record = await store.insertImport({
    workspaceId: principal.workspaceId,
    userId: principal.kind === "session" ? principal.userId : null,
    format: query.format,
    domainId: query.domain_id ?? null,
    dryRun: query.dry_run,
    source: await storedRows(rows),
    total: rows.length,
  });
  resume(record.id);
  return toImportView(record);
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

function resume(id: string): void {
  runningJob(id, () => runImport(id))?.catch((error) => log().error({ err: error, importId: id }, "import job failed"));
}

/**
 * Runs the job from its next row; returns without doing anything when another job holds the
 * import. The lease outlives any batch: it is renewed every third of its length while the job
 * runs (a batch waiting on the write budget takes minutes), so a reader resuming interrupted
 * imports never starts a second job on rows this one is importing. It ends only when the process
 * does; then another job resumes at the last saved batch. Saving a batch, renewing and finishing
 * all name the job's token, so a job that lost the lease anyway (a stalled process) stops without
 * counting anything twice.
 */
export async function runImport(id: string, leaseMs = LEASE_MS): Promise<void> {
  const token = newSecretToken();
  const record = await store.claimImport(id, token, leaseMs);
  if (!record || record.source === null) return;
  const lease = keepLease(id, token, leaseMs);
  try {
    await runClaimedImport(record, token, lease);
  } finally {
    lease.stop();
  }
}

type Lease = { held(): boolean; stop(): void };

function keepLease(id: string, token: string, leaseMs: number): Lease {
  let held = true;
  const timer = setInterval(() => {
    store.renewLease(id, token, leaseMs).then(
      (renewed) => {
        held &&= renewed;
      },
      (error) => log().warn({ err: error, importId: id }, "import lease not renewed"),
    );
  }, leaseMs / 3);
  return { held: () => held, stop: () => clearInterval(timer) };
}

async function runClaimedImport(record: ImportRecord, token: string, lease: Lease): Promise<void> {
  const { id } = record;
  const principal = await principalOf(record);
  if (!principal) {
    await store.finishImport(id, token, "failed", announceFinished, {
      row: 0,
      error: "The person who started this import is no longer a member of the workspace.",
    });
    return;
  }
  const rows = await rowsFromStore(record.source!);
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
    if (!lease.held() || (await store.saveProgress(id, token, batch)) === "stopped") return;
  }
  await store.finishImport(id, token, "done", announceFinished);
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

/**
 * One row through the same service as POST /api/links; its refusal is the row's error, in the API's
 * sentence. A dry run applies the destination's rules without looking names up (no DNS, no Web
 * Risk): the real run looks them up, so it may refuse a row whose name resolves inside.
 */
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
      await rowTurn(async () => ensureSlugAvailable(await prepareLink(record.workspaceId, input, { lookups: false })));
      if (!row.shortLink) context.destinationsDone.add(row.destination);
      return "created";
    }
    await spendWrite(record.workspaceId);
    const { created } = await rowTurn(() => createLink(principal, input, { importedFrom: origin.url }));
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
