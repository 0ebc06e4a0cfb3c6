import { clock } from "@/lib/clock";
import { config } from "@/lib/config";
import { arrayLiterals } from "@/lib/db/array-literal";
import { inTransaction } from "@/lib/db/checkout";
import { connectionWatchdog, pool, writerPool } from "@/lib/db/pool";
import { MAX_SCAN_MESSAGE_BYTES, scanMessages } from "@/lib/webhooks/outbox";
import { anyScanListener, enqueueScanMessages } from "@/lib/webhooks/store/deliveries";
import type pg from "pg";
import type { ScanRow } from "../enrich";
import type { ParkedWrite } from "../parked-batches";
import { scanMessageFromText, scanMessageText } from "../scan-message";
import { rollupFanOut } from "./fold";
import { QUARTER, ROLLUP_DAYS_LOCK } from "./rollups";

/**
 * The append: a batch of scans claimed under its id and written, or parked for later, and the
 * parked batches written oldest first.
 */

/**
 * Writes one batch in ONE statement, so it lands whole or not at all: it claims the batch id (a
 * retry of a batch that was committed writes nothing), records each visitor's first scan of a link
 * on its UTC day in scan_link_visitors (one row a visitor and link; the primary key decides across
 * instances) and marks their first scan of the workspace that day (below), inserts the raw rows, and adds the counts to the quarter-hour rollups (and to the day
 * and month rollups too for a scan of a day before daily_from; closeScanDays adds the others once
 * their day has ended): per link its totals (scan_rollups, dimension 0) and its breakdown rows
 * (scan_link_breakdowns), per workspace every dimension.
 * `rows[i]` stands for `counts[i]` identical scans (the buffer folds a visitor's repeats within a
 * millisecond), and so does its raw row (`scans`); a unique flag on it marks the first of those scans.
 * Scans of a link that does not exist, or named on a host the link is not served on (its custom
 * domain, or the short host for a link without one), are left out: no foreign key checks raw rows
 * (links are never deleted), and a row from outside (the NATS stream) names its link and host itself.
 *
 * Which destination served (a routing rule's or the link's own) is a dimension of the link's rollups
 * too, not of its breakdown rows: it says little combined with the others, and would multiply them.
 * Only rules' rows are written for a link: its own destination's share is its total less its
 * rules' (servedByLink), so a link without rules, nearly every one, writes two rows a scan fewer.
 *
 * The statement answers with the positions (1-based) of the rows it wrote: none when the batch
 * had been written before. The link.scanned webhook messages of the batch (one per link, its
 * scans coalesced) are made of those rows only and written in the same transaction, so a batch and
 * its messages land together.
 *
 * The batch's commit is this function's return: the one place where a batch becomes visible.
 * It runs on one of the scan writer's own connections (lib/db/pool.ts), so visits never wait behind it for one.
 */
export async function writeScanBatch(batchId: string, rows: ScanRow[], counts: number[] = rows.map(() => 1)): Promise<void> {
  if (rows.length === 0) return;
  await inWriterTransaction((client) => writeBatchWith(client, batchId, rows, counts));
}

/**
 * Parks a batch the writer has no time to roll up yet (it is behind the door): one row in
 * scan_inbox, written in about a millisecond for thousands of scans, so a door faster than the
 * rollups loses nothing. The batch keeps its id: writing it later claims that id as writeScanBatch
 * does, and parking the same batch twice keeps one row.
 */
export async function parkScanBatch(batchId: string, rows: ScanRow[], counts: number[], deadline?: number): Promise<void> {
  if (rows.length === 0) return;
  // PostgreSQL does not notice a client gone while its statement waits on a lock: a parking the
  // client gave up on would commit later, and its scans be counted after the log called them lost.
  // So the statement gives up itself, by the deadline, and a parking stuck longer than a write
  // would take leaves its batch to the writer.
  const timeoutMs = Math.floor(Math.min(PARKING_TIMEOUT_MS, (deadline ?? Infinity) - Date.now() - PARKING_DEADLINE_MARGIN_MS));
  if (timeoutMs <= 0) throw new Error("No time was left to park the batch before the process ends.");
  // The process pool, not the writer's connection: a batch being written (for seconds) must not hold parking back.
  await inTransaction(
    pool(),
    (client) =>
      client.query({
        name: "analytics.park-scan-batch",
        text: "INSERT INTO scan_inbox (batch_id, first_scan_at, scans, body) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
        values: [
          batchId,
          new Date(Math.min(...rows.map((row) => row.occurredAt.getTime()))),
          counts.reduce((total, count) => total + count, 0),
          scanMessageText({ id: batchId, rows, counts }),
        ],
      }),
    { settings: { statement_timeout: timeoutMs, ...ORPHAN_TIMEOUT }, watchdog: connectionWatchdog() },
  );
}

/**
 * A transaction whose client vanished in silence (a cut connection, given up by the watchdog) stays
 * open in PostgreSQL, idle, holding its batch id's row and its rollups' locks, and the retry of
 * the batch would wait behind it for as long as the server keeps the dead connection (hours):
 * PostgreSQL ends it once it has been idle this long. Between their statements the writer's
 * transactions are idle for milliseconds.
 */
const ORPHAN_TIMEOUT = { idle_in_transaction_session_timeout: "3s" };

/** Parking one batch takes milliseconds, a few hundred under load; one stuck this long (a lock) is given up. */
const PARKING_TIMEOUT_MS = 10_000;
/** A parking given up at the deadline must have stopped in PostgreSQL before the process says so and ends. */
const PARKING_DEADLINE_MARGIN_MS = 250;

/**
 * Writes the oldest parked batch, and takes it out of scan_inbox in the same transaction, so it is
 * counted once: a failure rolls back both, and an instance writing parked batches at the same time
 * skips the one locked here. A batch whose write failed goes behind the others, so one that can
 * never be written (a body this release cannot read) holds none back. A batch written before it
 * was parked (its commit's answer was lost) is taken and counts nothing.
 */
export async function writeOldestParkedBatch(): Promise<ParkedWrite> {
  let taken: string | undefined;
  try {
    return await inWriterTransaction(async (client) => {
      const oldest = await client.query<{ batch_id: string; scans: number; body: string }>({
        name: "analytics.take-parked-batch",
        text: `DELETE FROM scan_inbox WHERE batch_id = (
            SELECT batch_id FROM scan_inbox ORDER BY parked_at, batch_id LIMIT 1 FOR UPDATE SKIP LOCKED)
          RETURNING batch_id, scans, body`,
      });
      const parked = oldest.rows[0];
      if (!parked) return { taken: false };
      taken = parked.batch_id;
      const message = scanMessageFromText(parked.body);
      const claimed = await writeBatchWith(client, message.id, message.rows, message.counts);
      return { taken: true, written: claimed ? parked.scans : 0 };
    });
  } catch (error) {
    if (taken !== undefined)
      await pool()
        .query("UPDATE scan_inbox SET parked_at = now() WHERE batch_id = $1", [taken])
        .catch(() => undefined);
    throw error;
  }
}

/** Scans parked and not yet written, by every instance (for the bench and health). */
export async function parkedScans(): Promise<number> {
  const result = await pool().query<{ scans: string | null }>("SELECT sum(scans) AS scans FROM scan_inbox");
  return Number(result.rows[0]?.scans ?? 0);
}

export function inWriterTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  // PostgreSQL JIT-compiles a statement whose estimated cost runs high, as a big batch's can:
  // seconds of compiling for tens of ms of running. The fan-out's grouping and sorts hold a few
  // hundred thousand rows for the biggest batches: in memory, not spilled to disk (the default
  // 4 MB spilled a batch of 5,000 spread scans in two places).
  // The shared lock: closeScanDays moves daily_from only between batches (it takes the lock exclusively).
  // The watchdog: a connection cut in silence under a batch fails the batch (kept and retried, its
  // id claimed once) instead of holding the writer until the kernel gives up on it.
  return inTransaction(writerPool(), work, {
    settings: { jit: "off", work_mem: "64MB", ...ORPHAN_TIMEOUT },
    advisoryLock: { key: ROLLUP_DAYS_LOCK, mode: "shared" },
    watchdog: connectionWatchdog(),
  });
}

/** The ScanRow fields sent as the batch statement's arrays $2 to $13, in its unnest's order. */
const BATCH_COLUMNS = [
  "linkId",
  "host",
  "occurredAt",
  "userAgent",
  "referrerHost",
  "country",
  "viaQr",
  "device",
  "browser",
  "os",
  "bot",
  "visitor",
] as const satisfies readonly (keyof ScanRow)[];

/**
 * The batch statement's parameters: the id ($1), the rows' columns as arrays ($2 to $15, encoded a
 * column a turn of the event loop) and the short host ($16). bench/scan-cost.ts sends the same to
 * the statement of the release before, to measure both side by side.
 */
export async function batchStatementValues(batchId: string, rows: ScanRow[], counts: number[]): Promise<string[]> {
  const columns = await arrayLiterals([
    ...BATCH_COLUMNS.map((key) => rows.map((row) => row[key])),
    counts,
    // Rows from a scan stream message written before routing rules existed have no servedRule (NULL).
    rows.map((row) => row.servedRule),
  ]);
  return [batchId, ...columns, new URL(config().SHORT_BASE_URL).hostname];
}

/** Resolves to whether the batch wrote any scan: false when its id had been claimed by an earlier write, or every row was refused. */
async function writeBatchWith(client: pg.PoolClient, batchId: string, rows: ScanRow[], counts: number[]): Promise<boolean> {
  const written = await client.query<{ ord: string }>({
    name: "analytics.write-scan-batch",
    text: WRITE_SCAN_BATCH,
    values: await batchStatementValues(batchId, rows, counts),
  });
  // link.scanned tells only the scans the statement wrote, by the positions it answers with: not a
  // row it refused (a link that does not exist, or named on a host it is not served on: a forged row
  // from the NATS stream would otherwise tell another workspace's webhook of scans never counted),
  // and nothing for a batch written before (its id was claimed: a redelivery). The statement says
  // which in the same snapshot that wrote them; a second query could not (a link's host can change between).
  const accepted = written.rows.map((row) => Number(row.ord) - 1);
  const claimed = accepted.length > 0;
  if (claimed && (await anyScanListener(client))) {
    const scans = accepted.map((index) => ({ ...rows[index]!, count: counts[index] ?? 1 }));
    await enqueueScanMessages(client, scanMessages(scans, clock().now()), new Date(clock().now()), MAX_SCAN_MESSAGE_BYTES);
  }
  return claimed;
}

/**
 * The batch statement; n is the batch's events, L the links table's rows, R the rollup rows.
 * Every step is O(n log n) at most in the batch and O(log) per row in the tables it touches, so a
 * batch's time follows its size, not the tables' (bench/batch-plan.ts --explain shows each step):
 * - claimed: one primary-key insert, O(log batches).
 * - input: n primary-key probes of links, O(n log L) (the planner may hash L instead while L is small).
 * - first_seen: n rows sorted, then inserted with one probe each, O(n log n + n log V) (V: visitor
 *   rows): one visitor row a scan, the link's, where the release before wrote the workspace's too.
 *   Matched below with an uncorrelated IN: one hash of first_seen, O(n) (a correlated EXISTS scanned
 *   it once a scan, and joins degenerated to 24 million comparisons for one visitor on 5,000 links).
 * - seen_before: the batch's visitors the workspace had already seen that day, by any link: one
 *   probe each of the visitor rows' key prefix (day, workspace, visitor), O(n log V). It reads the
 *   statement's snapshot, so neither this batch's rows nor a batch committing meanwhile: two writers
 *   writing one visitor's scans of two links of a workspace at the same moment (two buffers, two
 *   instances) both count the workspace's unique, the one estimate among the counts (docs/analytics.md).
 *   The probe costs 3–10 µs a spread scan (it grows with the visitor rows), nearly what inserting
 *   the workspace's row cost; what it saves is mostly that row's log (ADR 0011 has the numbers).
 * - flagged: two window sorts, O(n log n).
 * - raw: n appends with their index entries, O(n log E) (E: the day partition's rows); no foreign key
 *   probes links (input joined them).
 * - folded: scans alike in every rolled-up column become one row with counts before the fan-out
 *   (fanning out first made 140,000 rows to group for a batch of 5,000), O(n) hashed; f ≤ n rows.
 * - grains: each folded row in its quarter hour, 1f rows; in its UTC day and month too only when
 *   the day is before daily_from (a late scan of a day already closed): closeScanDays sums every
 *   later day once it has ended, from its raw rows, where adding each batch's scans took two more
 *   rows a link and grain (a batch of 5,000 spread scans took half as long again).
 * - breakdowns: the link's rows by combination of values, f grouped and sorted, one probe each,
 *   O(f log f + f log B) (B: breakdown rows).
 * - workspace_grains: the grains folded once more without the link, O(f) hashed; w ≤ 3f rows, few
 *   when a batch's links share a workspace (fanning every link's row out to the workspace's eight
 *   dimensions first made 150,000 rows to group for a batch of 5,000 spread scans).
 * - the rollup upserts: the links' totals (f) and rules' served rows (f at most, none without
 *   rules) in link_rollups, then, last, the workspace's 8 dimensions (8w), each grouped and
 *   sorted, one probe a row, O(f log f + f log R). A batch spread over links without rules writes about one rollup row a
 *   link, where one row per dimension, value and grain took 21 (bench/batch-plan.ts); writing
 *   the links' own-destination rows too made batches of 5,000 spread scans take a third longer.
 * Every upsert goes in key order and the steps run in the same order in every statement (the
 * workspace's rows last, rollupFanOut), so concurrent writers take rows in the same order and never
 * deadlock; keys start with the workspace and the link, so a link's rows share a few index pages.
 * Exported for bench/scan-levers.ts, which measures variants of it beside it.
 */
export const WRITE_SCAN_BATCH = `
  WITH rollup_days AS (
    SELECT coalesce((SELECT daily_from FROM scan_rollup_days), 'infinity') AS daily_from
  ),
  claimed AS (
    INSERT INTO scan_batches (id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING id
  ),
  input AS (
    SELECT e.*, l.workspace_id, (e.occurred_at AT TIME ZONE 'UTC')::date AS day, decode(e.visitor, 'hex') AS visitor_key
    FROM unnest($2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::text[], $7::text[], $8::boolean[], $9::text[],
      $10::text[], $11::text[], $12::boolean[], $13::text[], $14::integer[], $15::smallint[])
      WITH ORDINALITY AS e(link_id, host, occurred_at, user_agent, referrer_host, country, via_qr, device, browser, os, bot,
        visitor, scans, served_rule, ord)
    JOIN links l ON l.id = e.link_id AND coalesce(l.host, $16) = e.host
    WHERE EXISTS (SELECT 1 FROM claimed)
  ),
  first_seen AS (
    INSERT INTO scan_link_visitors (day, workspace_id, visitor, link_id)
    SELECT DISTINCT i.day, i.workspace_id, i.visitor_key, i.link_id
    FROM input i
    WHERE i.visitor_key IS NOT NULL
    ORDER BY 1, 2, 3, 4
    ON CONFLICT DO NOTHING
    RETURNING day, link_id, visitor
  ),
  seen_before AS (
    SELECT DISTINCT i.day, i.workspace_id, i.visitor_key
    FROM input i
    WHERE i.visitor_key IS NOT NULL AND EXISTS (
      SELECT 1 FROM scan_link_visitors v WHERE v.day = i.day AND v.workspace_id = i.workspace_id AND v.visitor = i.visitor_key)
  ),
  flagged AS (
    SELECT i.*,
      i.visitor_key IS NOT NULL
        AND row_number() OVER (PARTITION BY i.day, i.link_id, i.visitor_key ORDER BY i.ord) = 1
        AND (i.day, i.link_id, i.visitor_key) IN (SELECT day, link_id, visitor FROM first_seen) AS link_unique,
      i.visitor_key IS NOT NULL
        AND row_number() OVER (PARTITION BY i.day, i.workspace_id, i.visitor_key ORDER BY i.ord) = 1
        AND (i.day, i.workspace_id, i.visitor_key) NOT IN (SELECT day, workspace_id, visitor_key FROM seen_before) AS workspace_unique
    FROM input i
  ),
  raw AS (
    INSERT INTO scan_events (link_id, host, occurred_at, user_agent, referrer_host, country, via_qr, device, browser, os, bot,
      link_unique, workspace_unique, scans, served_rule, daily)
    SELECT link_id, host, occurred_at, user_agent, referrer_host, country, via_qr, device, browser, os, bot, link_unique,
      workspace_unique, scans, served_rule, occurred_at < (SELECT daily_from FROM rollup_days)
    FROM flagged ORDER BY ord
    RETURNING 1
  ),
${rollupFanOut(
  `g.grain = ${QUARTER} OR f.utc_day < (SELECT daily_from FROM rollup_days)`,
  ["raw"],
  (writesDone) => `SELECT ord FROM input WHERE ${writesDone} ORDER BY ord`,
)}`;
