import type { Prisma } from "@/lib/db/generated/client";
import { db, type DbClient, transaction } from "@/lib/db/client";
import { newId } from "@/lib/db/random";

export type ImportRecord = Prisma.ImportGetPayload<object>;
export type RowError = { row: number; error: string };

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

/** Extends the lease of the job holding `token`; false when another job has taken the import since. */
export async function renewLease(id: string, token: string, leaseMs: number): Promise<boolean> {
  const renewed = await db().$executeRaw`
    UPDATE imports SET lease_until = now() + ${leaseMs} * interval '1 millisecond'
    WHERE id = ${id} AND lease_token = ${token} AND status = 'running'`;
  return renewed === 1;
}

/** Records a batch's outcome, in one statement, if the job holding `token` still holds the import; "stopped" once it is no longer running (cancelled). */
export async function saveProgress(
  id: string,
  token: string,
  progress: { nextRow: number; created: number; skipped: number; failed: number; errors: RowError[] },
): Promise<"running" | "stopped"> {
  const saved = await db().$queryRaw<{ status: string }[]>`
    UPDATE imports SET
      next_row = ${progress.nextRow},
      created = created + ${progress.created},
      skipped = skipped + ${progress.skipped},
      failed = failed + ${progress.failed},
      errors = CASE WHEN jsonb_array_length(errors) >= ${MAX_KEPT_ERRORS} THEN errors
                    ELSE errors || ${JSON.stringify(progress.errors)}::jsonb END
    WHERE id = ${id} AND lease_token = ${token}
    RETURNING status`;
  return saved[0]?.status === "running" ? "running" : "stopped";
}

/**
 * Cancels a queued or running import in one statement; the job holding it still saves the batch it
 * is writing (its token stays), then stops. Null when no such import is under way.
 */
export async function cancelImport(workspaceId: string, id: string): Promise<ImportRecord | null> {
  const rows = await db().$queryRaw<{ id: string }[]>`
    UPDATE imports SET status = 'cancelled', source = NULL, lease_until = NULL, finished_at = now()
    WHERE id = ${id} AND workspace_id = ${workspaceId} AND status IN ('queued', 'running')
    RETURNING id`;
  return rows[0] ? db().import.findUnique({ where: { id } }) : null;
}

/** Imports of the workspace, and (with a user) of that person in any workspace, that have not finished. */
export async function unfinishedImports(
  workspaceId: string,
  userId: string | null,
): Promise<{ workspace: number; person: number }> {
  const unfinished = { status: { in: ["queued", "running"] } };
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

export async function isImported(workspaceId: string, importedFrom: string): Promise<boolean> {
  return (await db().link.count({ where: { workspaceId, importedFrom } })) > 0;
}

/** The workspace's verified custom domains by hostname. */
export async function verifiedDomains(workspaceId: string): Promise<Map<string, string>> {
  const domains = await db().domain.findMany({
    where: { workspaceId, verifiedAt: { not: null } },
    select: { id: true, hostname: true },
  });
  return new Map(domains.map((domain) => [domain.hostname, domain.id]));
}

/** Imports a job still holds or that a restart interrupted (their lease has run out). */
export async function resumableImports(workspaceId: string): Promise<string[]> {
  const rows = await db().import.findMany({
    where: { workspaceId, status: { in: ["queued", "running"] }, OR: [{ leaseUntil: null }, { leaseUntil: { lt: new Date() } }] },
    select: { id: true },
  });
  return rows.map((row) => row.id);
}
