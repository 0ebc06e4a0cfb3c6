import { db, type DbClient, transaction } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/client";
import { newId } from "@/lib/db/random";
import { keysetCursor } from "@/lib/http/cursor";

export type ImportRecord = Prisma.ImportGetPayload<object>;
/** A failed row: its number, why, and what it named (its short link, else its destination or title) so a person finds it. */
export type RowError = { row: number; error: string; subject?: string };

/** Errors kept per import; the failed count stays exact beyond it. */
const MAX_KEPT_ERRORS = 10_000;

export async function insertImport(data: {
  workspaceId: string;
  userId: string | null;
  format: string;
  domainId: string | null;
  dryRun: boolean;
  source: string;
  total: number;
}): Promise<ImportRecord> {
  return db().import.create({ data: { id: newId("imp"), status: "queued", ...data } });
}

export async function findImport(workspaceId: string, id: string): Promise<ImportRecord | null> {
  return db().import.findFirst({ where: { id, workspaceId } });
}

export async function listImports(workspaceId: string): Promise<ImportRecord[]> {
  return db().import.findMany({ where: { workspaceId }, orderBy: { createdAt: "desc" }, take: 100 });
}

/**
 * Takes the import for one job until the lease ends, under the job's own token. One statement
 * decides between jobs (two instances resuming the same import after a restart, or a reader of the
 * import resuming it): only the one whose UPDATE finds the lease free gets the row back.
 */
export async function claimImport(id: string, token: string, leaseMs: number): Promise<ImportRecord | null> {
  const rows = await db().$queryRaw<{ id: string }[]>`
    UPDATE imports SET status = 'running', lease_token = ${token},
      lease_until = now() + ${leaseMs} * interval '1 millisecond'
    WHERE id = ${id} AND status IN ('queued', 'running') AND (lease_until IS NULL OR lease_until < now())
    RETURNING id`;
  return rows[0] ? db().import.findUnique({ where: { id } }) : null;
}

/** Extends the lease of the job holding `token` (also while it finishes the batch of a cancelled import); false when another job has taken the import since. */
export async function renewLease(id: string, token: string, leaseMs: number): Promise<boolean> {
  const renewed = await db().$executeRaw`
    UPDATE imports SET lease_until = now() + ${leaseMs} * interval '1 millisecond'
    WHERE id = ${id} AND lease_token = ${token} AND status IN ('running', 'cancelling')`;
  return renewed === 1;
}

/** What became of one entry; `keys` name what a created entry stands for (lib/imports/service.ts). */
export type EntryOutcome = {
  entry: number;
  row: number;
  code: string | null;
  outcome: "created" | "kept" | "merged" | "failed";
  linkId: string | null;
  mergedInto: number | null;
  error: string | null;
  keys: string[];
  /** A failed entry's short link, destination or title as read (kept with the import's errors, not in the report). */
  subject?: string;
};

/**
 * Records a batch, in one statement, if the job holding `token` still holds the import: its
 * counts, its failed rows' errors, and every entry's outcome in the report; "stopped" once it is
 * no longer running. An import being cancelled (`cancelling`) is `cancelled` with this batch: what
 * the report says was done is exactly what was written. The entries are written only when the
 * counts are (the CTE's condition), so the report and the counts never disagree; an entry already
 * written (a job that lost its lease and came back) is left as it was.
 */
export async function saveProgress(
  id: string,
  token: string,
  progress: { nextRow: number; created: number; kept: number; merged: number; failed: number; errors: RowError[] },
  entries: EntryOutcome[],
): Promise<"running" | "stopped"> {
  const saved = await db().$queryRaw<{ status: string }[]>`
    WITH saved AS (
      UPDATE imports SET
        next_row = ${progress.nextRow},
        created = created + ${progress.created},
        kept = kept + ${progress.kept},
        merged = merged + ${progress.merged},
        skipped = skipped + ${progress.kept + progress.merged},
        failed = failed + ${progress.failed},
        errors = CASE WHEN jsonb_array_length(errors) >= ${MAX_KEPT_ERRORS} THEN errors
                      ELSE errors || ${JSON.stringify(progress.errors)}::jsonb END,
        status = CASE WHEN status = 'cancelling' THEN 'cancelled' ELSE status END,
        finished_at = CASE WHEN status = 'cancelling' THEN now() ELSE finished_at END,
        lease_until = CASE WHEN status = 'cancelling' THEN NULL ELSE lease_until END
      WHERE id = ${id} AND lease_token = ${token}
      RETURNING status
    ), written AS (
      INSERT INTO import_rows (import_id, entry, "row", code, outcome, link_id, merged_into, error, keys)
      SELECT ${id}, e.entry, e."row", e.code, e.outcome, e.link_id, e.merged_into, e.error,
        ARRAY(SELECT jsonb_array_elements_text(e.keys))
      FROM jsonb_to_recordset(${JSON.stringify(entries.map(asStoredEntry))}::jsonb)
        AS e(entry int, "row" int, code text, outcome text, link_id text, merged_into int, error text, keys jsonb)
      WHERE EXISTS (SELECT 1 FROM saved)
      ON CONFLICT (import_id, entry) DO NOTHING
    )
    SELECT status FROM saved`;
  return saved[0]?.status === "running" ? "running" : "stopped";
}

function asStoredEntry(entry: EntryOutcome) {
  return {
    entry: entry.entry,
    row: entry.row,
    code: entry.code,
    outcome: entry.outcome,
    link_id: entry.linkId,
    merged_into: entry.mergedInto,
    error: entry.error,
    keys: entry.keys,
  };
}

/** The created entries of an import so far, with what each stands for: a resumed job starts from them. */
export async function createdEntries(importId: string): Promise<{ row: number; linkId: string | null; keys: string[] }[]> {
  return db().importEntry.findMany({
    where: { importId, outcome: "created" },
    select: { row: true, linkId: true, keys: true },
  });
}

export const entryCursor = keysetCursor({ entry: "count" });

/** A page of the import's report, in file order, optionally of one outcome. */
export async function pageOfEntries(
  importId: string,
  filter: { outcome?: string },
  limit: number,
  after?: { entry: number },
): Promise<ImportEntryRow[]> {
  return db().importEntry.findMany({
    where: { importId, ...(filter.outcome && { outcome: filter.outcome }), ...(after && { entry: { gt: after.entry } }) },
    orderBy: { entry: "asc" },
    take: limit,
    select: { entry: true, row: true, code: true, outcome: true, linkId: true, mergedInto: true, error: true },
  });
}

export type ImportEntryRow = Omit<Prisma.ImportEntryGetPayload<object>, "importId" | "keys">;

/**
 * Cancels an import in one statement. One no job holds (queued, or a job a restart interrupted) is
 * `cancelled` at once; one a job is importing is `cancelling` until that job has saved the batch it
 * is writing (saveProgress), then `cancelled`. The file is dropped either way: nothing resumes it.
 * Null when no such import is under way.
 */
export async function cancelImport(workspaceId: string, id: string): Promise<ImportRecord | null> {
  const rows = await db().$queryRaw<{ id: string }[]>`
    UPDATE imports SET source = NULL,
      status = CASE WHEN status = 'running' AND lease_until > now() THEN 'cancelling' ELSE 'cancelled' END,
      finished_at = CASE WHEN status = 'running' AND lease_until > now() THEN NULL ELSE now() END,
      lease_until = CASE WHEN status = 'running' AND lease_until > now() THEN lease_until ELSE NULL END
    WHERE id = ${id} AND workspace_id = ${workspaceId} AND status IN ('queued', 'running')
    RETURNING id`;
  return rows[0] ? db().import.findUnique({ where: { id } }) : null;
}

/** Imports of the workspace, and (with a user) of that person in any workspace, that have not finished. */
export async function unfinishedImports(
  workspaceId: string,
  userId: string | null,
): Promise<{ workspace: number; person: number }> {
  const unfinished = { status: { in: ["queued", "running", "cancelling"] } };
  const [workspace, person] = await Promise.all([
    db().import.count({ where: { workspaceId, ...unfinished } }),
    userId ? db().import.count({ where: { userId, ...unfinished } }) : 0,
  ]);
  return { workspace, person };
}

/** Done (if the job holding `token` still holds it): the file is dropped, the counts and errors stay; `onFinished` writes, in the same transaction, what announces it. */
export async function finishImport(
  id: string,
  token: string,
  status: "done" | "failed",
  onFinished: (client: DbClient, record: ImportRecord) => Promise<void>,
  error?: RowError,
): Promise<void> {
  await transaction(async (tx) => {
    const finished = await tx.$executeRaw`
      UPDATE imports SET status = ${status}, source = NULL, lease_until = NULL, lease_token = NULL, finished_at = now(),
        errors = CASE WHEN ${error === undefined} THEN errors ELSE errors || ${JSON.stringify(error ? [error] : [])}::jsonb END
      WHERE id = ${id} AND lease_token = ${token} AND status = 'running'`;
    const record = finished === 1 ? await tx.import.findUnique({ where: { id } }) : null;
    if (record) await onFinished(tx, record);
  });
}

/** The workspace's links imported from these short URLs before, by the short URL (one statement). */
export async function importedLinks(workspaceId: string, importedFroms: string[]): Promise<Map<string, string>> {
  if (importedFroms.length === 0) return new Map();
  const links = await db().link.findMany({
    where: { workspaceId, importedFrom: { in: [...new Set(importedFroms)] } },
    select: { id: true, importedFrom: true },
    orderBy: { createdAt: "asc" },
  });
  const found = new Map<string, string>();
  for (const link of links) if (!found.has(link.importedFrom!)) found.set(link.importedFrom!, link.id);
  return found;
}

export type SlugHolder = { id: string; workspaceId: string; destination: string };

export const holderKey = (code: { host: string; slug: string }) => `${code.host} ${code.slug}`;

/** The links holding these slugs on their hosts, whichever workspace's, by holderKey (one statement). */
export async function linksAt(codes: { host: string; slug: string }[]): Promise<Map<string, SlugHolder>> {
  if (codes.length === 0) return new Map();
  const links = await db().link.findMany({
    where: { OR: codes.map(({ host, slug }) => ({ host, slug })) },
    select: { id: true, workspaceId: true, destination: true, host: true, slug: true },
  });
  return new Map(
    links.map((link) => [
      holderKey({ host: link.host!, slug: link.slug }),
      { id: link.id, workspaceId: link.workspaceId, destination: link.destination },
    ]),
  );
}

/** The workspace's live link a create without a slug would return instead of a new one (the same-destination rule). */
export async function reusableLink(
  workspaceId: string,
  host: string | null,
  destination: string,
): Promise<{ id: string } | null> {
  return db().link.findFirst({
    where: { workspaceId, host, destination, reusable: true, archivedAt: null },
    select: { id: true },
  });
}

/** The workspace's verified custom domains by hostname. */
export async function verifiedDomains(workspaceId: string): Promise<Map<string, string>> {
  const domains = await db().domain.findMany({
    where: { workspaceId, verifiedAt: { not: null } },
    select: { id: true, hostname: true },
  });
  return new Map(domains.map((domain) => [domain.hostname, domain.id]));
}

/**
 * Imports a job still holds or that a restart interrupted (their lease has run out). One being
 * cancelled whose job was interrupted before saving its batch is cancelled now: its report is what
 * the saved batches did.
 */
export async function resumableImports(workspaceId: string): Promise<string[]> {
  await db().$executeRaw`
    UPDATE imports SET status = 'cancelled', finished_at = now(), lease_until = NULL
    WHERE workspace_id = ${workspaceId} AND status = 'cancelling' AND lease_until < now()`;
  const rows = await db().import.findMany({
    where: { workspaceId, status: { in: ["queued", "running"] }, OR: [{ leaseUntil: null }, { leaseUntil: { lt: new Date() } }] },
    select: { id: true },
  });
  return rows.map((row) => row.id);
}
