import { DAY_MS, utcDayStart } from "@/lib/clock";
import { inTransaction } from "@/lib/db/checkout";
import { db } from "@/lib/db/client";
import { isLockNotAvailable } from "@/lib/db/errors";
import { pool } from "@/lib/db/pool";
import type pg from "pg";
import { rollupsClosedBefore } from "./rollups";

/**
 * The retention and the raw events' day partitions (docs/adr/0006-scan-events-by-day.md):
 * partitions created ahead, expired ones detached and dropped, older rows deleted in chunks, and
 * the visitor sets and batch claims past their use.
 */

/** Visitor sets outlive their day by two (a late batch still finds them); batch claims by as long. */
const VISITOR_DAYS_KEPT = 2;
const PRUNE_CHUNK = 10_000;

/**
 * Raw events are partitioned by UTC day (docs/adr/0006-scan-events-by-day.md): the retention job
 * creates each day's partition this many days ahead, so a week without the job passes before a scan
 * lands in the default partition (and even then it is written, and moved into its day later).
 */
const SCAN_PARTITION_DAYS_AHEAD = 7;
/**
 * Creating or detaching a partition takes the partitioned table's exclusive lock, which waits for the
 * batch being written and holds the next ones back while it waits: past this, the change gives up
 * until the next run instead of stalling the writer (the default partition and row deletion cover it).
 */
const PARTITION_LOCK_TIMEOUT = "3s";
/** A detached partition is renamed with this suffix until it is counted and dropped. */
const EXPIRED_SUFFIX = "_expired";
/** The transaction-level advisory lock that counts and drops a detached partition once, whichever instance gets there first. */
const EXPIRED_DROP_LOCK = 7206104302;

export type PrunedScanData = { cutoff: Date; events: number; partitionsDropped: string[]; partitionsLocked: boolean };

/**
 * Removes raw events older than the retention, then visitor sets and batch claims past their use.
 * The rollups are kept: they answer for every day after its raw rows are gone.
 *
 * Whole partitions older than the cutoff are detached (renamed …_expired), then counted and dropped;
 * the rows older than the cutoff left in a partition that straddles it (today's hour of the day
 * leaving, the default partition's, the partition from before partitioning) are deleted in chunks
 * as before. So afterwards exactly the rows at or after the cutoff remain, as with row-by-row
 * deletion. If the table's lock could not be had within PARTITION_LOCK_TIMEOUT, nothing is
 * detached this run (partitionsLocked false) and the old partitions' rows are deleted instead.
 *
 * No count is lost: a raw row exists only once the statement that wrote it has committed, and that
 * one statement (writeScanBatch above) also added the row to its quarter hour, and to its day and
 * month unless its day waits to be closed; the cutoff never passes closed_before, so the raw rows
 * a closing still sums are kept. Each chunk is one statement, deleted whole or not at all; the
 * chunks keep each transaction short, and a run cut off (a cron's time limit) leaves the rest for
 * the next. Every step is idempotent, so instances pruning at the same time only share the work.
 * Instants are sent as ISO strings with their offset, never read in a session's zone.
 */
export async function pruneScanData(retentionDays: number, now: number): Promise<PrunedScanData> {
  // A day not closed yet still needs its raw rows (closeScanDays sums them).
  const cutoff = new Date(Math.min(now - retentionDays * DAY_MS, (await rollupsClosedBefore(db())).getTime()));
  const partitionsLocked = await detachExpiredScanPartitions(cutoff.getTime());
  const dropped = await dropExpiredScanPartitions();
  let events = dropped.reduce((sum, partition) => sum + partition.rows, 0);
  for (;;) {
    const deleted = await db().$executeRaw`
      DELETE FROM scan_events WHERE occurred_at < ${cutoff.toISOString()}::timestamptz AND (occurred_at, id) IN (
        SELECT occurred_at, id FROM scan_events WHERE occurred_at < ${cutoff.toISOString()}::timestamptz LIMIT ${PRUNE_CHUNK})`;
    events += deleted;
    if (deleted < PRUNE_CHUNK) break;
  }
  const keptFrom = new Date(now - VISITOR_DAYS_KEPT * DAY_MS).toISOString();
  // A parked batch still to be written needs the visitor sets of its days (least() skips the NULL of an empty inbox).
  // scan_visitors is the visitor set of releases before scan_link_visitors, kept pruned while one may still write it.
  await db().$executeRaw`
    DELETE FROM scan_link_visitors WHERE day < least((${keptFrom}::timestamptz AT TIME ZONE 'UTC')::date,
      (SELECT (min(first_scan_at) AT TIME ZONE 'UTC')::date FROM scan_inbox))`;
  await db().$executeRaw`
    DELETE FROM scan_visitors WHERE day < least((${keptFrom}::timestamptz AT TIME ZONE 'UTC')::date,
      (SELECT (min(first_scan_at) AT TIME ZONE 'UTC')::date FROM scan_inbox))`;
  await db().$executeRaw`DELETE FROM scan_batches WHERE written_at < ${keptFrom}::timestamptz`;
  return { cutoff, events, partitionsDropped: dropped.map((partition) => partition.name), partitionsLocked };
}

export type ScanPartitionsCreated = { created: string[]; locked: boolean };

/**
 * Creates the partition of each UTC day from `now`'s to SCAN_PARTITION_DAYS_AHEAD later that no
 * partition covers yet, moving that day's rows out of the default partition into it (a partition
 * cannot be added while the default holds rows of its range). Does nothing, and takes no lock,
 * when every day is covered.
 */
export async function createScanPartitionsAhead(now: number): Promise<ScanPartitionsCreated> {
  const firstDay = utcDayStart(now);
  const days = Array.from({ length: SCAN_PARTITION_DAYS_AHEAD + 1 }, (_, index) => firstDay + index * DAY_MS);
  const uncovered = (partitions: ScanPartition[]) =>
    days.filter((day) => !partitions.some((partition) => !partition.isDefault && covers(partition, day)));
  if (uncovered(await scanPartitions(pool())).length === 0) return { created: [], locked: true };
  const created = await underScanEventsLock(async (client) => {
    const partitions = await scanPartitions(client);
    const defaultPartition = partitions.find((partition) => partition.isDefault);
    const missing = uncovered(partitions);
    for (const day of missing) await createDayPartition(client, day, defaultPartition?.name);
    return missing.map(dayPartitionName);
  });
  return { created: created ?? [], locked: created !== undefined };
}

type ScanPartition = { name: string; isDefault: boolean; from: number | null; to: number | null };
type Queryable = Pick<pg.PoolClient, "query">;

/** scan_events' partitions and their bounds in epoch milliseconds (null: MINVALUE or MAXVALUE). */
async function scanPartitions(client: Queryable): Promise<ScanPartition[]> {
  const { rows } = await client.query<{ name: string; is_default: boolean; from_ms: number | null; to_ms: number | null }>(`
    SELECT c.relname AS name, b.bound = 'DEFAULT' AS is_default,
      extract(epoch FROM substring(b.bound FROM 'FROM [(]''([^'']+)''[)]')::timestamptz)::float8 * 1000 AS from_ms,
      extract(epoch FROM substring(b.bound FROM 'TO [(]''([^'']+)''[)]')::timestamptz)::float8 * 1000 AS to_ms
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    CROSS JOIN LATERAL (SELECT pg_get_expr(c.relpartbound, c.oid) AS bound) b
    WHERE i.inhparent = 'scan_events'::regclass`);
  return rows.map((row) => ({ name: row.name, isDefault: row.is_default, from: row.from_ms, to: row.to_ms }));
}

function covers(partition: ScanPartition, instant: number): boolean {
  return (partition.from === null || partition.from <= instant) && (partition.to === null || instant < partition.to);
}

/** scan_events_pYYYYMMDD: the UTC day a partition holds. */
function dayPartitionName(day: number): string {
  return `scan_events_p${new Date(day).toISOString().slice(0, 10).replaceAll("-", "")}`;
}

/**
 * One day's partition. PostgreSQL refuses a partition while the default partition holds rows of its
 * range, so those rows (a scan of a day the job had not reached) are first moved out into a
 * temporary table, then into the new partition through the partitioned table; nothing can add one
 * meanwhile, since the caller holds the partitioned table's lock. (CREATE ... PARTITION OF rather
 * than ATTACH: the embedded database adds a change-capture trigger to every new table, which a
 * partition must inherit from the partitioned table, not bring along.) The name and instants are
 * made here from a number, never from input.
 */
async function createDayPartition(client: Queryable, day: number, defaultPartition: string | undefined): Promise<void> {
  const from = `'${new Date(day).toISOString()}'::timestamptz`;
  const to = `'${new Date(day + DAY_MS).toISOString()}'::timestamptz`;
  const ofTheDay = `occurred_at >= ${from} AND occurred_at < ${to}`;
  const { rows } = defaultPartition
    ? await client.query<{ waiting: boolean }>(`SELECT EXISTS (SELECT 1 FROM "${defaultPartition}" WHERE ${ofTheDay}) AS waiting`)
    : { rows: [{ waiting: false }] };
  if (rows[0]!.waiting) {
    await client.query("CREATE TEMPORARY TABLE scan_events_moving (LIKE scan_events) ON COMMIT DROP");
    await client.query(`
      WITH moved AS (DELETE FROM "${defaultPartition}" WHERE ${ofTheDay} RETURNING *)
      INSERT INTO scan_events_moving SELECT * FROM moved`);
  }
  await client.query(`CREATE TABLE "${dayPartitionName(day)}" PARTITION OF scan_events FOR VALUES FROM (${from}) TO (${to})`);
  if (rows[0]!.waiting) {
    await client.query("INSERT INTO scan_events SELECT * FROM scan_events_moving");
    await client.query("DROP TABLE scan_events_moving");
  }
}

/**
 * Detaches the partitions wholly older than the cutoff and renames each …_expired, in one short
 * transaction under the partitioned table's lock (not CONCURRENTLY: PostgreSQL refuses it while a
 * default partition exists, and it cannot run in a transaction). False when the lock was not had.
 */
async function detachExpiredScanPartitions(cutoff: number): Promise<boolean> {
  const expired = (partitions: ScanPartition[]) =>
    partitions.filter((partition) => !partition.isDefault && partition.to !== null && partition.to <= cutoff);
  if (expired(await scanPartitions(pool())).length === 0) return true;
  const detached = await underScanEventsLock(async (client) => {
    for (const { name } of expired(await scanPartitions(client))) {
      await client.query(`ALTER TABLE scan_events DETACH PARTITION "${name}"`);
      await client.query(`ALTER TABLE "${name}" RENAME TO "${name}${EXPIRED_SUFFIX}"`);
    }
    return true;
  });
  return detached ?? false;
}

/**
 * Counts and drops every detached expired partition (this run's, or one a run cut off before its
 * drop left behind). Each is one transaction holding only the table itself: the writer no longer
 * reaches it, so counting it holds nobody back. The advisory lock makes one instance count it.
 */
async function dropExpiredScanPartitions(): Promise<{ name: string; rows: number }[]> {
  const { rows: tables } = await pool().query<{ name: string }>(
    `SELECT relname AS name FROM pg_class
     WHERE relnamespace = 'public'::regnamespace AND relkind = 'r' AND NOT relispartition
       AND relname ~ '^scan_events_.+${EXPIRED_SUFFIX}$'
     ORDER BY relname`,
  );
  const dropped: { name: string; rows: number }[] = [];
  for (const { name } of tables) {
    const rows = await inTransaction(pool(), async (client) => {
      await client.query("SELECT pg_advisory_xact_lock($1)", [EXPIRED_DROP_LOCK]);
      const { rows: present } = await client.query<{ present: boolean }>("SELECT to_regclass($1) IS NOT NULL AS present", [
        `"${name}"`,
      ]);
      if (!present[0]!.present) return undefined;
      const { rows: counted } = await client.query<{ rows: string }>(`SELECT count(*) AS rows FROM "${name}"`);
      await client.query(`DROP TABLE "${name}"`);
      return Number(counted[0]!.rows);
    });
    if (rows !== undefined) dropped.push({ name: name.slice(0, -EXPIRED_SUFFIX.length), rows });
  }
  return dropped;
}

/**
 * Runs `work` in a transaction holding scan_events' ACCESS EXCLUSIVE lock, which creating,
 * attaching and detaching a partition take anyway: taken first, it also makes two instances' runs
 * take turns, each re-reading the partitions once it holds it. Undefined when the lock did not come
 * within PARTITION_LOCK_TIMEOUT.
 */
async function underScanEventsLock<Result>(work: (client: Queryable) => Promise<Result>): Promise<Result | undefined> {
  try {
    return await inTransaction(
      pool(),
      async (client) => {
        await client.query("LOCK TABLE scan_events IN ACCESS EXCLUSIVE MODE");
        return work(client);
      },
      { settings: { lock_timeout: PARTITION_LOCK_TIMEOUT } },
    );
  } catch (error) {
    if (isLockNotAvailable(error)) return undefined;
    throw error;
  }
}
