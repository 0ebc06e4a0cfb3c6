import type { DbClient } from "@/lib/db/client";
import { newSecretToken } from "@/lib/db/random";
import { DomainError } from "@/lib/http/errors";
import { enforceImportWriteLimit } from "@/lib/http/write-limit";
import { log } from "@/lib/log";
import { announceEvent } from "@/lib/webhooks/outbox";
import { findRole } from "@/lib/workspaces/store";
import type { Principal } from "@/lib/workspaces/types";
import { runningJob } from "./capacity";
import {
  commitEntries,
  decideEntry,
  entryKeys,
  importEntry,
  type JobContext,
  lookupsFor,
  madeFrom,
  madeSince,
  type PendingEntry,
  settledAgainst,
} from "./entries";
import { type ImportRow, rowsFromStore, storedRows } from "./parser";
import { nextPage, openPeerToken, type PeerCursor, PeerFailure, peerName } from "./peers";
import type { EntryOutcome, ImportRecord, RowError } from "./store";
import * as store from "./store";
import { toImportView } from "./view";

const LEASE_MS = 30_000;
const BATCH_ROWS = 50;
/** Rows of a batch imported at once: a row's time is mostly spent waiting on the database and DNS. */
const CONCURRENT_ROWS = 8;

/** Starts the import's job in this process unless it already runs or waits here. */
export function resume(id: string): void {
  runningJob(id, () => runImport(id))?.catch((error) => log().error({ err: error, importId: id }, "import job failed"));
}

/**
 * Runs the job from its next row; returns without doing anything when another job holds the
 * import. The lease outlives any batch: it is renewed every third of its length while the job
 * runs (a batch waiting on the import budget takes up to a minute), so a reader resuming interrupted
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
  const domains = await store.verifiedDomains(record.workspaceId);
  const bareCodeHost = record.domainId ? ([...domains].find(([, domainId]) => domainId === record.domainId)?.[0] ?? null) : null;
  const job: Omit<JobContext, "batch"> = {
    principal,
    record,
    domains,
    bareCodeHost,
    made: madeFrom(await store.createdEntries(id)),
    spendWrites: (writes) => spendWrites(record.workspaceId, writes),
  };
  const pages = pagesOf(record);
  for (let page: Page | string | null = await pages.first(); page; page = await pages.next(page, token)) {
    if (typeof page === "string") {
      await store.finishImport(id, token, "failed", announceFinished, { row: 0, error: page });
      return;
    }
    const end = page.start + page.rows.length;
    for (let start = Math.max(record.nextRow, page.start); start < end; start += BATCH_ROWS) {
      const nextRow = Math.min(start + BATCH_ROWS, end);
      const batch = page.rows.slice(start - page.start, nextRow - page.start);
      const outcomes = await importBatch({ ...job, batch: await lookupsFor(job, batch) }, start, batch);
      if (!lease.held() || (await store.saveProgress(id, token, countsOf(nextRow, outcomes), outcomes)) === "stopped") return;
    }
  }
  if (lease.held()) await store.finishImport(id, token, "done", announceFinished);
}

/** Rows the job has in hand: a file's all at once, or the page of a peer's API under way, from entry `start`. */
type Page = { rows: ImportRow[]; start: number; cursor: PeerCursor | null };

/**
 * The import's rows page by page: a file is one page; an import by API token reads the peer's next
 * page once the one in hand is imported, and keeps it (store.savePage) before importing it, so a
 * resumed job asks for the page it had not finished. A PeerFailure's sentence ends the job; "stop"
 * when the import was cancelled meanwhile, or another job holds it.
 */
function pagesOf(record: ImportRecord) {
  const key = record.peerTokenSealed ? openPeerToken(record.peerTokenSealed) : null;
  return {
    first: async (): Promise<Page> => ({
      rows: await rowsFromStore(record.source!),
      start: record.sourceStart,
      cursor: (record.peerCursor as PeerCursor | null) ?? null,
    }),
    next: async (page: Page, token: string): Promise<Page | string | null> => {
      if (!page.cursor || !key) return null;
      let read;
      try {
        read = await nextPage(page.cursor, key);
      } catch (error) {
        if (error instanceof PeerFailure) return error.message;
        // The page read by the peer's file mapping, refused as a file would be (no destination field…).
        if (error instanceof DomainError)
          return `${peerName(page.cursor.source)}'s API answered a page this import cannot read: ${error.message}`;
        throw error;
      }
      const start = page.start + page.rows.length;
      const kept = await store.savePage(record.id, token, {
        source: await storedRows(read.rows),
        sourceStart: start,
        total: start + read.rows.length,
        cursor: read.next,
      });
      return kept === "running" ? { rows: read.rows, start, cursor: read.next } : null;
    },
  };
}

function countsOf(nextRow: number, outcomes: EntryOutcome[]) {
  const counts = { nextRow, created: 0, kept: 0, merged: 0, failed: 0, errors: [] as RowError[] };
  for (const outcome of outcomes) {
    counts[outcome.outcome]++;
    if (outcome.outcome === "failed")
      counts.errors.push({ row: outcome.row, error: outcome.error!, ...(outcome.subject && { subject: outcome.subject }) });
  }
  return counts;
}

/** import.finished, written with the import's last state. */
function announceFinished(client: DbClient, record: ImportRecord): Promise<void> {
  return announceEvent(client, record.workspaceId, "import.finished", toImportView(record));
}

/**
 * A batch's entries, each with the outcome it would have had in file order. Entries are decided
 * several at a time (their checks wait mostly on DNS), and written in file order: the entries that
 * create a link together, in one transaction, up to an entry that must see what those made. That
 * one (it shares its original short URL or its destination with an earlier entry, or something made
 * since it was decided shares its keys) is then decided and written on its own, so rows already
 * imported, a taken slug and the same-destination rule decide between rows as one after another.
 */
async function importBatch(context: JobContext, start: number, rows: ImportRow[]): Promise<EntryOutcome[]> {
  const waits = entriesThatWait(context, rows);
  const outcomes: EntryOutcome[] = new Array(rows.length);
  const decided = new Map<number, PendingEntry>();
  const first = rows.flatMap((_, index) => (waits.has(index) ? [] : [index]));
  await concurrently(first, CONCURRENT_ROWS, async (index) => {
    const entry = await decideEntry(context, start + index, rows[index]!);
    if ("outcome" in entry) outcomes[index] = entry;
    else decided.set(index, entry);
  });
  let together: PendingEntry[] = [];
  const claimed = new Set<string>();
  const write = async () => {
    for (const outcome of await commitEntries(context, together)) outcomes[outcome.entry - start] = outcome;
    together = [];
    claimed.clear();
  };
  for (const [index, row] of rows.entries()) {
    const pending = decided.get(index);
    if (!pending && !waits.has(index)) continue;
    if (pending && !pending.keys.some((key) => claimed.has(key)) && !madeSince(context, pending)) {
      together.push(pending);
      for (const key of pending.keys) claimed.add(key);
      continue;
    }
    await write();
    outcomes[index] = await importEntry(context, start + index, row);
  }
  await write();
  return outcomes.map((outcome) => settledAgainst(context.made, outcome));
}

/** The entries sharing their original short URL or their destination as written with an earlier one of the batch. */
function entriesThatWait(context: JobContext, rows: ImportRow[]): Set<number> {
  const seen = new Set<string>();
  const waits = new Set<number>();
  rows.forEach((row, index) => {
    const keys = entryKeys(context, row);
    if (keys.some((key) => seen.has(key))) waits.add(index);
    for (const key of keys) seen.add(key);
  });
  return waits;
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
 * The job paces itself on the import budget (IMPORT_WRITES_PER_MINUTE, the workspace's own for its
 * imports, never its write budget), a write at a time however many a batch writes: a cost of many
 * at once that does not fit is counted all the same by Upstash's sliding window, and could then
 * never fit. Refused, it waits as long as the budget says and asks again.
 */
async function spendWrites(workspaceId: string, writes: number): Promise<void> {
  for (let spent = 0; spent < writes; spent++) await spendWrite(workspaceId);
}

async function spendWrite(workspaceId: string): Promise<void> {
  for (;;) {
    try {
      return await enforceImportWriteLimit(workspaceId);
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== "rate_limited") throw error;
      const seconds = Number(error.headers["Retry-After"] ?? "1");
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, seconds) * 1000));
    }
  }
}

async function principalOf(record: ImportRecord): Promise<Principal | null> {
  // An API key's import runs as the workspace's key: creating a link reads only the workspace from it.
  if (!record.userId) return { kind: "api_key", apiKeyId: "", workspaceId: record.workspaceId };
  const role = await findRole(record.workspaceId, record.userId);
  return role ? { kind: "session", userId: record.userId, workspaceId: record.workspaceId, role } : null;
}
