import { db, readDb, type DbClient } from "@/lib/db/client";
import type pg from "pg";
import { arrayLiterals } from "@/lib/db/array-literal";
import { inTransaction } from "@/lib/db/checkout";
import { pool, writerPool } from "@/lib/db/pool";
import type { ScanRow } from "./enrich";
import type { ParkedWrite } from "./scan-buffer";
import { scanMessageFromText, scanMessageText } from "./scan-message";
import { clock, DAY_MS, utcDayStart } from "@/lib/clock";
import { config } from "@/lib/config";
import { Prisma } from "@/lib/db/generated/client";
import { DomainError } from "@/lib/http/errors";
import { MAX_SCAN_MESSAGE_BYTES, scanMessages } from "@/lib/webhooks/outbox";
import { anyScanListener, enqueueScanMessages } from "@/lib/webhooks/store";
import {
  type AnalyticsFilter,
  type AnalyticsReport,
  type AnalyticsRow,
  type FilterDimension,
  type GroupBy,
  isDateOnly,
} from "./schemas";

/**
 * Rollup grains, in minutes: quarter hours cut every time zone's days and hours exactly; UTC days
 * and UTC months (0: a month has no fixed length) make long ranges cheap. The writer below adds a
 * scan to its quarter hour; closeScanDays adds each ended day's scans to their day and month.
 */
export const QUARTER = 15;
export const DAY = 1440;
export const MONTH = 0;

/** Rollup dimensions; 0 is every scan (and the bots, counted apart). */
export const DIMENSIONS = { total: 0, country: 1, device: 2, browser: 3, os: 4, referrer: 5, source: 6, served: 7 } as const;
/** The served dimension's value for a link's own destination (a rule's is `rule:<index>`). */
const SERVED_DEFAULT = "default";

/**
 * Writes one batch in ONE statement, so it lands whole or not at all: it claims the batch id (a
 * retry of a batch that was committed writes nothing), records each visitor's first scan of the
 * UTC day per link and per workspace in scan_visitors (the primary key decides across
 * instances), inserts the raw rows, and adds the counts to the quarter-hour rollups (and to the day
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
 * The link.scanned webhook messages of the batch (one per link, its scans coalesced) are written in
 * the same transaction, so a batch and its messages land together.
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
    `BEGIN; SET LOCAL statement_timeout = ${timeoutMs}`,
  );
}

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

function inWriterTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  // PostgreSQL JIT-compiles a statement whose estimated cost runs high, as a big batch's can:
  // seconds of compiling for tens of ms of running. The fan-out's grouping and sorts hold a few
  // hundred thousand rows for the biggest batches: in memory, not spilled to disk (the default
  // 4 MB spilled a batch of 5,000 spread scans in two places).
  // The shared lock: closeScanDays moves daily_from only between batches (it takes the lock exclusively).
  return inTransaction(
    writerPool(),
    work,
    `BEGIN; SET LOCAL jit = off; SET LOCAL work_mem = '64MB'; SELECT pg_advisory_xact_lock_shared(${ROLLUP_DAYS_LOCK})`,
  );
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

/** Resolves to whether the batch was new: false when its id had been claimed by an earlier write. */
async function writeBatchWith(client: pg.PoolClient, batchId: string, rows: ScanRow[], counts: number[]): Promise<boolean> {
  const columns = await arrayLiterals([
    ...BATCH_COLUMNS.map((key) => rows.map((row) => row[key])),
    counts,
    // Rows from a scan stream message written before routing rules existed have no servedRule (NULL).
    rows.map((row) => row.servedRule),
  ]);
  const written = await client.query({
    name: "analytics.write-scan-batch",
    text: WRITE_SCAN_BATCH,
    values: [batchId, ...columns, new URL(config().SHORT_BASE_URL).hostname],
  });
  // Nothing was added to the rollups when the batch had been written before (its id was claimed), so no message either.
  const claimed = (written.rowCount ?? 0) > 0;
  if (claimed && (await anyScanListener(client))) {
    const scans = rows.map((row, index) => ({ ...row, count: counts[index] ?? 1 }));
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
 * - first_seen: 2n rows sorted, then inserted with one probe each, O(n log n + n log V) (V: visitor rows).
 *   Matched below with an uncorrelated IN: one hash of first_seen, O(n) (a correlated EXISTS scanned
 *   it once a scan, and joins degenerated to 24 million comparisons for one visitor on 5,000 links).
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
 */
const WRITE_SCAN_BATCH = `
  WITH rollup_days AS (
    SELECT coalesce((SELECT daily_from FROM scan_rollup_days), 'infinity') AS daily_from
  ),
  claimed AS (
    INSERT INTO scan_batches (id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING id
  ),
  input AS (
    SELECT e.*, l.workspace_id, (e.occurred_at AT TIME ZONE 'UTC')::date AS day
    FROM unnest($2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::text[], $7::text[], $8::boolean[], $9::text[],
      $10::text[], $11::text[], $12::boolean[], $13::text[], $14::integer[], $15::smallint[])
      WITH ORDINALITY AS e(link_id, host, occurred_at, user_agent, referrer_host, country, via_qr, device, browser, os, bot,
        visitor, scans, served_rule, ord)
    JOIN links l ON l.id = e.link_id AND coalesce(l.host, $16) = e.host
    WHERE EXISTS (SELECT 1 FROM claimed)
  ),
  first_seen AS (
    INSERT INTO scan_visitors (day, scope_id, visitor)
    SELECT DISTINCT i.day, s.scope_id, decode(i.visitor, 'hex')
    FROM input i CROSS JOIN LATERAL (VALUES (i.link_id), (i.workspace_id)) s(scope_id)
    WHERE i.visitor IS NOT NULL
    ORDER BY 1, 2, 3
    ON CONFLICT DO NOTHING
    RETURNING day, scope_id, encode(visitor, 'hex') AS visitor
  ),
  flagged AS (
    SELECT i.*,
      i.visitor IS NOT NULL
        AND row_number() OVER (PARTITION BY i.day, i.link_id, i.visitor ORDER BY i.ord) = 1
        AND (i.day, i.link_id, i.visitor) IN (SELECT day, scope_id, visitor FROM first_seen) AS link_unique,
      i.visitor IS NOT NULL
        AND row_number() OVER (PARTITION BY i.day, i.workspace_id, i.visitor ORDER BY i.ord) = 1
        AND (i.day, i.workspace_id, i.visitor) IN (SELECT day, scope_id, visitor FROM first_seen) AS workspace_unique
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
${rollupFanOut(`g.grain = ${QUARTER} OR f.utc_day < (SELECT daily_from FROM rollup_days)`, ["raw"])}`;

/**
 * From the batch's or the day's scans (a CTE `flagged`: a link's and its workspace's ids, the scan's
 * columns and unique flags) to the rollups, for the grains `grains` keeps (a condition on g.grain
 * and f.utc_day): the steps after `raw` in the complexity list above. `alsoFirst` names the
 * statement's other writing CTEs (each with RETURNING).
 *
 * The rows every batch shares, the workspace's, are upserted last: the statement's one
 * InitPlan-gated step runs every other write to completion first (breakdowns, the links' rows and
 * `alsoFirst`, in that order), so a concurrent writer waits for them only from there to the
 * commit, not for the whole statement. Every write takes its rows in key order, and the steps run
 * in the same order in every statement, so concurrent writers never deadlock.
 */
function rollupFanOut(grains: string, alsoFirst: string[] = []): string {
  const writtenFirst = ["breakdowns", "link_rollups", ...alsoFirst].map((step) => `(SELECT count(*) FROM ${step})`);
  return `
  folded AS (
    SELECT workspace_id, link_id,
      date_bin('15 minutes', occurred_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS quarter,
      date_trunc('day', occurred_at, 'UTC') AS utc_day,
      coalesce(country, 'unknown') AS country, coalesce(device, 'unknown') AS device, coalesce(browser, 'unknown') AS browser,
      coalesce(os, 'unknown') AS os, coalesce(referrer_host, 'direct') AS referrer,
      CASE WHEN via_qr THEN 'qr' ELSE 'link' END AS source, bot,
      coalesce('rule:' || served_rule, '${SERVED_DEFAULT}') AS served,
      sum(scans) AS scans, count(*) FILTER (WHERE link_unique) AS link_uniques,
      count(*) FILTER (WHERE workspace_unique) AS workspace_uniques
    FROM flagged
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
  ),
  grains AS (
    SELECT f.*, g.grain, g.bucket
    FROM folded f
    CROSS JOIN LATERAL (VALUES
      (${QUARTER}::smallint, f.quarter),
      (${DAY}::smallint, f.utc_day),
      (${MONTH}::smallint, date_trunc('month', f.utc_day, 'UTC'))) g(grain, bucket)
    WHERE ${grains}
  ),
  breakdowns AS (
    INSERT INTO scan_link_breakdowns AS b (workspace_id, link_id, grain, bucket, country, device, browser, os, referrer, source,
      scans, uniques)
    SELECT workspace_id, link_id, grain, bucket, country, device, browser, os, referrer, source, sum(scans), sum(link_uniques)
    FROM grains WHERE NOT bot
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    ON CONFLICT (workspace_id, link_id, grain, bucket, country, device, browser, os, referrer, source) DO UPDATE
      SET scans = b.scans + excluded.scans, uniques = b.uniques + excluded.uniques
    RETURNING 1
  ),
  link_rollups AS (
    ${rollupUpsert(`
      SELECT g.workspace_id, g.link_id, g.grain, d.dimension, g.bucket, d.value, g.scans, g.link_uniques AS uniques, g.bot
      FROM grains g
      CROSS JOIN LATERAL (VALUES (${DIMENSIONS.total}::smallint, ''), (${DIMENSIONS.served}::smallint, g.served)) d(dimension, value)
      WHERE d.dimension = ${DIMENSIONS.total} OR (NOT g.bot AND g.served <> '${SERVED_DEFAULT}')`)}
    RETURNING 1
  ),
  workspace_grains AS (
    SELECT workspace_id, grain, bucket, country, device, browser, os, referrer, source, bot, served,
      sum(scans) AS scans, sum(workspace_uniques) AS uniques
    FROM grains
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
  )
  ${rollupUpsert(`
    SELECT w.workspace_id, '' AS link_id, w.grain, d.dimension, w.bucket, d.value, w.scans, w.uniques, w.bot
    FROM workspace_grains w
    CROSS JOIN LATERAL (VALUES
      (${DIMENSIONS.total}::smallint, ''),
      (${DIMENSIONS.country}::smallint, w.country),
      (${DIMENSIONS.device}::smallint, w.device),
      (${DIMENSIONS.browser}::smallint, w.browser),
      (${DIMENSIONS.os}::smallint, w.os),
      (${DIMENSIONS.referrer}::smallint, w.referrer),
      (${DIMENSIONS.source}::smallint, w.source),
      (${DIMENSIONS.served}::smallint, w.served)) d(dimension, value)
    WHERE (d.dimension = ${DIMENSIONS.total} OR NOT w.bot) AND ${writtenFirst.join(" + ")} >= 0`)}`;
}

/** Adds `fanned`'s rows (a rollup key, scans, uniques and bot) to scan_rollups, grouped by key and in key order. */
function rollupUpsert(fanned: string): string {
  return `INSERT INTO scan_rollups AS r (workspace_id, link_id, grain, dimension, bucket, value, scans, uniques, bots)
    SELECT workspace_id, link_id, grain, dimension, bucket, value,
      coalesce(sum(scans) FILTER (WHERE NOT bot), 0), sum(uniques), coalesce(sum(scans) FILTER (WHERE bot), 0)
    FROM (${fanned}) fanned
    GROUP BY 1, 2, 3, 4, 5, 6
    ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (workspace_id, link_id, grain, dimension, bucket, value) DO UPDATE
      SET scans = r.scans + excluded.scans, uniques = r.uniques + excluded.uniques, bots = r.bots + excluded.bots`;
}

/**
 * Taken shared by every batch write and exclusively to move daily_from, so a batch that read the
 * old value has committed before the closing sums the day's raw rows.
 */
const ROLLUP_DAYS_LOCK = 7206104303;
/** A move of daily_from waits this long at most for the batches being written (it holds the next ones back while it waits). */
const ROLLUP_DAYS_LOCK_TIMEOUT = "3s";

/**
 * Sums one ended UTC day's scans that wait for it ($1 to $2, raw rows not yet daily) into its day
 * and month rows, with the writer's own fan-out: O(d log d + d log R) for the day's d raw rows,
 * read by one range scan of scan_events' key (its own partition).
 */
const CLOSE_SCAN_DAY = `
  WITH flagged AS (
    SELECT e.link_id, l.workspace_id, e.occurred_at, e.referrer_host, e.country, e.via_qr, e.device, e.browser, e.os, e.bot,
      e.scans, e.served_rule, e.link_unique, e.workspace_unique
    FROM scan_events e JOIN links l ON l.id = e.link_id
    WHERE e.occurred_at >= $1::timestamptz AND e.occurred_at < $2::timestamptz AND NOT e.daily
  ),
${rollupFanOut(`g.grain <> ${QUARTER}`)}`;

export type ClosedScanDays = { closed: string[]; locked: boolean };

/**
 * Closes the UTC days that have ended: their day and month rollups are summed once from their raw
 * rows instead of added to by every batch (the writer's statement says why). First daily_from moves
 * to today's start, under the exclusive lock, so every scan written later for an earlier day goes
 * to its day rows itself; then each day between closed_before and daily_from with scans waiting is
 * summed and closed, each in one transaction with the state row locked, so instances closing at
 * the same time close each day once. Until a day is closed its analytics are read from its quarter
 * hours (coveringSlices), so a run that is late, cut off or fails changes how fast a long range is
 * read, never what it counts. `locked` is false when the batches being written kept the lock
 * longer than ROLLUP_DAYS_LOCK_TIMEOUT: the next run moves it.
 */
export async function closeScanDays(now: number): Promise<ClosedScanDays> {
  const locked = await moveDailyFrom(new Date(utcDayStart(now)));
  const closed: string[] = [];
  for (let day = await closeNextScanDay(); day; day = await closeNextScanDay()) closed.push(day);
  return { closed, locked };
}

async function moveDailyFrom(today: Date): Promise<boolean> {
  const { rows } = await pool().query<{ behind: boolean }>(
    "SELECT daily_from < $1::timestamptz AS behind FROM scan_rollup_days",
    [today.toISOString()],
  );
  if (!rows[0]?.behind) return true;
  try {
    await inTransaction(pool(), async (client) => {
      // The state row first, as long as another instance's closing holds it: waiting for it while
      // holding the lock exclusively would hold every batch back meanwhile.
      await client.query("SELECT 1 FROM scan_rollup_days FOR UPDATE");
      await client.query(`SET LOCAL lock_timeout = '${ROLLUP_DAYS_LOCK_TIMEOUT}'`);
      await client.query("SELECT pg_advisory_xact_lock($1)", [ROLLUP_DAYS_LOCK]);
      await client.query("UPDATE scan_rollup_days SET daily_from = $1::timestamptz WHERE daily_from < $1::timestamptz", [
        today.toISOString(),
      ]);
    });
    return true;
  } catch (error) {
    if ((error as { code?: unknown }).code === LOCK_NOT_AVAILABLE) return false;
    throw error;
  }
}

/**
 * Closes the first day before daily_from with scans waiting, or, when none waits, every day up to
 * it (their scans are all in their day rows already). Resolves to the day closed (YYYY-MM-DD), or
 * undefined when nothing was left to close.
 */
async function closeNextScanDay(): Promise<string | undefined> {
  return inTransaction(pool(), async (client) => {
    const { rows: state } = await client.query<{ closed_before: Date; daily_from: Date }>(
      "SELECT closed_before, daily_from FROM scan_rollup_days FOR UPDATE",
    );
    const { closed_before: closedBefore, daily_from: dailyFrom } = state[0] ?? {};
    if (!closedBefore || !dailyFrom || closedBefore >= dailyFrom) return undefined;
    const { rows: waiting } = await client.query<{ first: Date | null }>(
      "SELECT min(occurred_at) AS first FROM scan_events WHERE occurred_at >= $1 AND occurred_at < $2 AND NOT daily",
      [closedBefore.toISOString(), dailyFrom.toISOString()],
    );
    const first = waiting[0]?.first;
    if (!first) {
      await client.query("UPDATE scan_rollup_days SET closed_before = daily_from");
      return undefined;
    }
    const day = new Date(utcDayStart(first.getTime()));
    const next = new Date(day.getTime() + DAY_MS);
    await client.query({
      name: "analytics.close-scan-day",
      text: CLOSE_SCAN_DAY,
      values: [day.toISOString(), next.toISOString()],
    });
    await client.query("UPDATE scan_rollup_days SET closed_before = $1::timestamptz", [next.toISOString()]);
    return day.toISOString().slice(0, 10);
  });
}

/** The first instant whose UTC day is not closed yet: analytics read whole days from day and month rows only before it. */
async function rollupsClosedBefore(client: DbClient): Promise<Date> {
  const [row] = await client.$queryRaw<{ closed_ms: number }[]>`
    SELECT extract(epoch FROM closed_before)::float8 * 1000 AS closed_ms FROM scan_rollup_days`;
  return row ? new Date(row.closed_ms) : FOREVER;
}

/** No closing state at all (a database restored without it): the writer then adds every scan to every grain itself. */
const FOREVER = new Date(8_640_000_000_000_000);

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
    return await inTransaction(pool(), async (client) => {
      await client.query(`SET LOCAL lock_timeout = '${PARTITION_LOCK_TIMEOUT}'`);
      await client.query("LOCK TABLE scan_events IN ACCESS EXCLUSIVE MODE");
      return work(client);
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === LOCK_NOT_AVAILABLE) return undefined;
    throw error;
  }
}

/** PostgreSQL's lock_not_available: the lock_timeout passed. */
const LOCK_NOT_AVAILABLE = "55P03";

/** Each link's scans (bots left out) from the UTC day `since` starts in to the end of today. */
export async function scansPerLinkSince(
  workspaceId: string,
  linkIds: readonly string[],
  since: Date,
): Promise<Map<string, number>> {
  if (linkIds.length === 0) return new Map();
  // One client for both reads: closed_before read on the primary and the rows on a replica that has
  // not replayed that closing yet would take the day from day rows it has not summed.
  const reader = readDb();
  const range = { ...utcDaysUpToToday(since), closedBefore: await rollupsClosedBefore(reader) };
  const links = Prisma.sql`workspace_id = ${workspaceId} AND dimension = ${DIMENSIONS.total} AND link_id IN (${Prisma.join(linkIds)})`;
  const rows = await reader.$queryRaw<{ link_id: string; scans: bigint }[]>`
    SELECT link_id, sum(scans)::bigint AS scans FROM (${rollupSlices(Prisma.sql`link_id, scans`, links, range)}) slices
    GROUP BY link_id`;
  return new Map(rows.map((row) => [row.link_id, Number(row.scans)]));
}

/** From the start of the UTC day holding `since` to the end of today (UTC). */
function utcDaysUpToToday(since: Date): Pick<Range, "start" | "end"> {
  const start = new Date(utcDayStart(since.getTime()));
  return { start, end: new Date(Math.max(start.getTime(), utcDayStart(clock().now())) + DAY_MS) };
}

export type AnalyticsRequest = {
  workspaceId: string;
  /** One link, or null for the whole workspace. */
  linkId: string | null;
  groupBy: GroupBy;
  start?: string;
  end?: string;
  timezone: string;
  /** Only the scans with this value of a breakdown, or every scan. */
  filter?: AnalyticsFilter | null;
};

/** Longest range answered: ten years of days, or a year of hours. */
const MAX_RANGE_DAYS = 3660;
const MAX_HOUR_RANGE_DAYS = 366;
const DEFAULT_RANGE = "30 days";
const QUARTER_ORIGIN = Prisma.sql`TIMESTAMPTZ '2000-01-01 00:00:00+00'`;

/** closedBefore: whole days are read from day and month rows only before it (rollupsClosedBefore). */
type Range = { start: Date; end: Date; startLabel: string; endLabel: string; closedBefore: Date };
type CountRow = { key: string; scans: bigint; uniques: bigint };

/**
 * One transaction whose session time zone is the request's, so PostgreSQL cuts days and hours
 * in that zone (offsets of half and quarter hours, and daylight saving, included).
 */
export async function readAnalytics(request: AnalyticsRequest): Promise<AnalyticsReport> {
  try {
    return await readDb().$transaction(async (tx) => {
      await tx.$queryRaw`SELECT set_config('TimeZone', ${request.timezone}, true)`;
      const range = await resolveRange(tx, request);
      const total = await totalOf(tx, request, range);
      const data =
        request.groupBy === "day" || request.groupBy === "hour"
          ? await timeSeries(tx, request, range)
          : await breakdown(tx, request, range);
      return {
        group_by: request.groupBy,
        start: range.startLabel,
        end: range.endLabel,
        timezone: request.timezone,
        total,
        data,
      };
    });
  } catch (error) {
    if (isUnknownTimeZone(error))
      throw new DomainError(
        "invalid_request",
        `The query string field "timezone" names a zone this database does not know: ${request.timezone}.`,
      );
    throw error;
  }
}

/**
 * start and end in the session's zone: a date is its local midnight (an end date counts its whole
 * day), a time without an offset is local, one with an offset is absolute; then snapped outward
 * to quarter hours, the rollups' finest grain.
 */
async function resolveRange(tx: DbClient, request: AnalyticsRequest): Promise<Range> {
  const now = new Date(clock().now());
  const endExpression = request.end
    ? isDateOnly(request.end)
      ? Prisma.sql`(${request.end}::date + 1)::timestamptz`
      : Prisma.sql`${request.end}::timestamptz`
    : Prisma.sql`(date_trunc('day', ${instant(now)}) + interval '1 day')`;
  const startExpression = request.start
    ? isDateOnly(request.start)
      ? Prisma.sql`${request.start}::date::timestamptz`
      : Prisma.sql`${request.start}::timestamptz`
    : Prisma.sql`(${endExpression} - ${DEFAULT_RANGE}::interval)`;
  const [row] = await tx.$queryRaw<{ start_ms: number; end_ms: number; start_label: string; end_label: string }[]>`
    WITH snapped AS (
      SELECT date_bin('15 minutes', ${startExpression}, ${QUARTER_ORIGIN}) AS s,
             date_bin('15 minutes', ${endExpression} + interval '15 minutes' - interval '1 microsecond', ${QUARTER_ORIGIN}) AS e
    )
    SELECT extract(epoch FROM s)::float8 * 1000 AS start_ms, extract(epoch FROM e)::float8 * 1000 AS end_ms,
      to_char(s, 'YYYY-MM-DD"T"HH24:MI:SSTZH:TZM') AS start_label, to_char(e, 'YYYY-MM-DD"T"HH24:MI:SSTZH:TZM') AS end_label
    FROM snapped`;
  const start = new Date(row!.start_ms);
  const end = new Date(row!.end_ms);
  if (start >= end) throw new DomainError("invalid_request", "The range is empty: start must come before end.");
  const limit = request.groupBy === "hour" ? MAX_HOUR_RANGE_DAYS : MAX_RANGE_DAYS;
  if (end.getTime() - start.getTime() > limit * DAY_MS) {
    throw new DomainError(
      "invalid_request",
      `The range is too long: at most ${limit} days${request.groupBy === "hour" ? " when grouping by hour" : ""}.`,
    );
  }
  return { start, end, startLabel: row!.start_label, endLabel: row!.end_label, closedBefore: await rollupsClosedBefore(tx) };
}

/** The rollup rows of one scope: a link, or the workspace's own totals (link_id ''). */
function scopeOf(request: AnalyticsRequest): Prisma.Sql {
  return Prisma.sql`workspace_id = ${request.workspaceId} AND link_id = ${request.linkId ?? ""}`;
}

/**
 * Day or hour buckets in the zone, in time order, every one present. Each bucket sums its quarter
 * hours with one index range scan (a lateral join), which beats converting every quarter hour to
 * local time and grouping: a year by day is 365 short scans.
 */
async function timeSeries(tx: DbClient, request: AnalyticsRequest, range: Range): Promise<AnalyticsRow[]> {
  const label = request.groupBy === "day" ? "YYYY-MM-DD" : 'YYYY-MM-DD"T"HH24:MI:SSTZH:TZM';
  const rows = await tx.$queryRaw<CountRow[]>`
    WITH series AS (${request.groupBy === "day" ? localDays(range) : localHours(range)})
    SELECT to_char(series.b, ${label}) AS key, coalesce(counts.scans, 0)::bigint AS scans, coalesce(counts.uniques, 0)::bigint AS uniques
    FROM series CROSS JOIN LATERAL (
      SELECT sum(scans) AS scans, sum(uniques) AS uniques FROM (
        SELECT scans, uniques FROM scan_rollups
        WHERE ${totalsOf(request)} AND grain = ${QUARTER} AND bucket >= series.counted_from AND bucket < series.counted_to
        ${request.filter && request.linkId ? linkQuartersFiltered(request) : Prisma.empty}
      ) quarters
    ) counts
    ORDER BY series.b`;
  return rows.map(toRow);
}

/** A filtered link's combination rows of the series' bucket: its quarter hours, one range scan of the key. */
function linkQuartersFiltered(request: AnalyticsRequest): Prisma.Sql {
  return Prisma.sql`UNION ALL SELECT scans, uniques FROM scan_link_breakdowns
    WHERE ${scopeOf(request)} AND grain = ${QUARTER} AND bucket >= series.counted_from AND bucket < series.counted_to
      ${filterCondition(request)}`;
}

/**
 * The zone's days overlapping the range, stepped as local dates (timestamps without a zone, so
 * generate_series does not pick its timestamptz form): each begins at its own first instant (cast
 * in the session's zone). Stepping an instant by a day would keep the time of
 * day of the day before, so after a day whose midnight was skipped (Chile's and Egypt's clocks go
 * forward at 00:00) every later day would have begun at 01:00.
 */
function localDays(range: Range): Prisma.Sql {
  return Prisma.sql`
    SELECT d::timestamptz AS b, greatest(d::timestamptz, ${instant(range.start)}) AS counted_from,
      least((d + interval '1 day')::timestamptz, ${instant(range.end)}) AS counted_to
    FROM generate_series(
      ${instant(range.start)}::date::timestamp,
      (${instant(range.end)} - interval '1 microsecond')::date::timestamp,
      interval '1 day'
    ) d`;
}

/**
 * The zone's hours overlapping the range. An hour's step of absolute time would keep every later
 * hour half an hour off once a zone moves its clocks by half an hour (Australia/Lord_Howe), so an
 * hour begins at each quarter hour that is on the hour locally or where the offset changes (a
 * repeated hour, or half hour, is one of its own, with its offset in its key).
 */
function localHours(range: Range): Prisma.Sql {
  return Prisma.sql`
    SELECT CASE WHEN q = ${instant(range.start)} THEN date_trunc('hour', q) ELSE q END AS b, q AS counted_from,
      coalesce(lead(q) OVER (ORDER BY q), ${instant(range.end)}) AS counted_to
    FROM generate_series(${instant(range.start)}, ${instant(range.end)} - interval '1 microsecond', interval '15 minutes') q
    WHERE q = ${instant(range.start)} OR extract(minute FROM q) = 0
      OR extract(timezone FROM q) <> extract(timezone FROM q - interval '15 minutes')`;
}

/** Counts by a dimension (or by link), most scans first; values with no scans in the range are left out. */
async function breakdown(tx: DbClient, request: AnalyticsRequest, range: Range): Promise<AnalyticsRow[]> {
  const { filter } = request;
  if (filter && request.groupBy !== filter.dimension) return withinFilter(tx, request, range);
  if (request.groupBy === "link" && !request.linkId) return byLink(tx, request, range);
  if (request.groupBy === "served" && request.linkId) return servedByLink(tx, request, range);
  const dimension =
    request.groupBy === "link" ? DIMENSIONS.total : DIMENSIONS[request.groupBy as Exclude<GroupBy, "day" | "hour" | "link">];
  const keyColumn = request.groupBy === "link" ? Prisma.sql`link_id` : Prisma.sql`value`;
  // Grouped by the filter's own breakdown: its one value.
  const onlyValue = filter ? Prisma.sql`AND value = ${filter.value}` : Prisma.empty;
  const dimensionRows = rollupSlices(
    Prisma.sql`${keyColumn} AS key, scans, uniques`,
    Prisma.sql`${scopeOf(request)} AND dimension = ${dimension} ${onlyValue}`,
    range,
  );
  const breakdownColumn = BREAKDOWN_COLUMNS[dimension];
  const slices =
    request.linkId && breakdownColumn
      ? Prisma.sql`${dimensionRows} UNION ALL ${breakdownSlices(Prisma.sql`${breakdownColumn} AS key, scans, uniques`, request, range)}`
      : dimensionRows;
  const rows = await tx.$queryRaw<CountRow[]>`
    SELECT key, sum(scans)::bigint AS scans, sum(uniques)::bigint AS uniques
    FROM (${slices}) slices
    GROUP BY key
    HAVING sum(scans) > 0
    ORDER BY sum(scans) DESC, key`;
  return rows.map(toRow);
}

/**
 * A link's scans by the destination that served them. Its own destination's rows are not written
 * (the writer's statement says why): its share is the total less the rules'. Rows of it written
 * before that are left out, so each scan is counted once either way.
 */
async function servedByLink(tx: DbClient, request: AnalyticsRequest, range: Range): Promise<AnalyticsRow[]> {
  const rules = Prisma.sql`${scopeOf(request)} AND dimension = ${DIMENSIONS.served} AND value <> ${SERVED_DEFAULT}`;
  const totals = Prisma.sql`${scopeOf(request)} AND dimension = ${DIMENSIONS.total}`;
  const rows = await tx.$queryRaw<CountRow[]>`
    SELECT key, sum(scans)::bigint AS scans, sum(uniques)::bigint AS uniques
    FROM (
      ${rollupSlices(Prisma.sql`value AS key, scans, uniques`, rules, range)}
      UNION ALL
      ${rollupSlices(Prisma.sql`${SERVED_DEFAULT}::text AS key, scans, uniques`, totals, range)}
      UNION ALL
      ${rollupSlices(Prisma.sql`${SERVED_DEFAULT}::text AS key, -scans, -uniques`, rules, range)}
    ) slices
    GROUP BY key
    HAVING sum(scans) > 0
    ORDER BY sum(scans) DESC, key`;
  return rows.map(toRow);
}

/**
 * The totals of each of the workspace's links, as scan_rollups_link_totals_idx holds them. The index
 * is partial: the conditions on dimension and link_id are written out so the planner matches them.
 */
function linkTotalsOf(workspaceId: string): Prisma.Sql {
  return Prisma.sql`workspace_id = ${workspaceId} AND dimension = 0 AND link_id <> ''`;
}

/**
 * The workspace's links: each slice is one range scan of scan_rollups_link_totals_idx (grain,
 * bucket, then link), so a year reads its months and edge days for every link at once instead of
 * one index probe per link and slice.
 */
async function byLink(tx: DbClient, request: AnalyticsRequest, range: Range): Promise<AnalyticsRow[]> {
  const rows = await tx.$queryRaw<CountRow[]>`
    SELECT link_id AS key, sum(scans)::bigint AS scans, sum(uniques)::bigint AS uniques
    FROM (${rollupSlices(Prisma.sql`link_id, scans, uniques`, linkTotalsOf(request.workspaceId), range)}) slices
    GROUP BY link_id
    HAVING sum(scans) > 0
    ORDER BY sum(scans) DESC, link_id`;
  return rows.map(toRow);
}

/**
 * The scan_rollups rows of the request's scope that count its scans: every scan (dimension 0), or
 * with a filter the rows of its dimension and value. For a link those are only the rows written
 * before its combination rows existed: the caller adds those (breakdownSlices).
 */
function totalsOf(request: AnalyticsRequest): Prisma.Sql {
  const { filter } = request;
  if (!filter) return Prisma.sql`${scopeOf(request)} AND dimension = ${DIMENSIONS.total}`;
  return Prisma.sql`${scopeOf(request)} AND dimension = ${DIMENSIONS[filter.dimension]} AND value = ${filter.value}`;
}

async function totalOf(tx: DbClient, request: AnalyticsRequest, range: Range): Promise<AnalyticsReport["total"]> {
  const rows = rollupSlices(Prisma.sql`scans, uniques, bots`, totalsOf(request), range);
  const linkFiltered =
    request.filter && request.linkId
      ? Prisma.sql` UNION ALL ${breakdownSlices(Prisma.sql`scans, uniques, 0 AS bots`, request, range)}`
      : Prisma.empty;
  const [row] = await tx.$queryRaw<{ scans: bigint | null; uniques: bigint | null; bots: bigint | null }[]>`
    SELECT sum(scans)::bigint AS scans, sum(uniques)::bigint AS uniques, sum(bots)::bigint AS bots
    FROM (${rows}${linkFiltered}) slices`;
  return { scans: Number(row?.scans ?? 0), uniques: Number(row?.uniques ?? 0), bots: Number(row?.bots ?? 0) };
}

/**
 * Another breakdown (or the links) within a filter: the links' combination rows with the filter's
 * value, summed by the breakdown's column. For the workspace, its links with scans in the range are
 * found first (a range scan of scan_rollups_link_totals_idx per slice, as byLink reads them), then
 * each link's rows are one range scan of scan_link_breakdowns' key per slice: the cost is those
 * links times the slices (at most five), plus the combination rows read, never the workspace's
 * whole history. Scans written before the combination rows existed (2026-11-26) are not in them.
 * A row's uniques are each link's visitors of the day, summed over the links.
 */
async function withinFilter(tx: DbClient, request: AnalyticsRequest, range: Range): Promise<AnalyticsRow[]> {
  const column = request.groupBy === "link" ? Prisma.sql`link_id` : combinationColumn(request.groupBy as FilterDimension);
  const links = request.linkId
    ? Prisma.sql`SELECT ${request.linkId}::text AS link_id`
    : Prisma.sql`SELECT link_id FROM (${rollupSlices(Prisma.sql`link_id, scans`, linkTotalsOf(request.workspaceId), range)}) slices
        GROUP BY link_id HAVING sum(scans) > 0`;
  const rows = await tx.$queryRaw<CountRow[]>`
    WITH scoped AS (${links})
    SELECT key, sum(scans)::bigint AS scans, sum(uniques)::bigint AS uniques
    FROM scoped CROSS JOIN LATERAL (
      ${breakdownSlices(Prisma.sql`${column} AS key, scans, uniques`, request, range, Prisma.sql`scoped.link_id`)}
    ) rows
    GROUP BY key
    HAVING sum(scans) > 0
    ORDER BY sum(scans) DESC, key`;
  return rows.map(toRow);
}

/**
 * A subquery of (link_id, scans): each link of the workspace with scans (bots apart) in the last
 * `days` UTC days up to the end of today, the range and rows the workspace's analytics by link
 * reads by default, so a list ordered by it shows the same numbers. Links without scans are absent.
 */
export async function recentScansByLink(workspaceId: string, days: number, now: Date): Promise<Prisma.Sql> {
  const end = new Date(utcDayStart(now.getTime()) + DAY_MS);
  const range = { start: new Date(end.getTime() - days * DAY_MS), end, closedBefore: await rollupsClosedBefore(readDb()) };
  const slices = rollupSlices(Prisma.sql`link_id, scans`, linkTotalsOf(workspaceId), range);
  return Prisma.sql`SELECT link_id, sum(scans)::bigint AS scans FROM (${slices}) slices GROUP BY link_id`;
}

/** One grain's buckets in [from, to). */
export type RollupSlice = { grain: number; from: Date; to: Date };

/**
 * The rollup buckets covering [start, end) exactly with as few rows as possible: whole UTC months
 * from the month grain, the whole UTC days around them from the day grain, the ragged edges (less
 * than a day each side) and everything from closedBefore on (days not closed yet have no day rows)
 * from the quarter-hour grain. start and end are quarter hours, and every month and day starts on
 * one (closedBefore too), so the slices meet without gap or overlap; empty ones are left out.
 */
export function coveringSlices(start: Date, end: Date, closedBefore: Date): RollupSlice[] {
  const cut = new Date(Math.min(Math.max(closedBefore.getTime(), start.getTime()), end.getTime()));
  return [...closedDaySlices(start, cut), { grain: QUARTER, from: cut, to: end }].filter((slice) => slice.from < slice.to);
}

function closedDaySlices(start: Date, end: Date): RollupSlice[] {
  const firstDay = new Date(Math.ceil(start.getTime() / DAY_MS) * DAY_MS);
  const lastDay = new Date(utcDayStart(end.getTime()));
  if (firstDay >= lastDay) return [{ grain: QUARTER, from: start, to: end }];
  const firstMonth = monthStart(firstDay, firstDay.getUTCDate() === 1 ? 0 : 1);
  const lastMonth = monthStart(lastDay, 0);
  const days: RollupSlice[] =
    firstMonth < lastMonth
      ? [
          { grain: DAY, from: firstDay, to: firstMonth },
          { grain: MONTH, from: firstMonth, to: lastMonth },
          { grain: DAY, from: lastMonth, to: lastDay },
        ]
      : [{ grain: DAY, from: firstDay, to: lastDay }];
  return [{ grain: QUARTER, from: start, to: firstDay }, ...days, { grain: QUARTER, from: lastDay, to: end }].filter(
    (slice) => slice.from < slice.to,
  );
}

/** The first instant of the UTC month `monthsLater` after the one holding `day`. */
function monthStart(day: Date, monthsLater: number): Date {
  return new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth() + monthsLater, 1));
}

/** The rows of `where` covering the range, one range scan of an index per slice. */
function rollupSlices(columns: Prisma.Sql, where: Prisma.Sql, range: Pick<Range, "start" | "end" | "closedBefore">): Prisma.Sql {
  const slices = coveringSlices(range.start, range.end, range.closedBefore).map(
    (slice) =>
      Prisma.sql`SELECT ${columns} FROM scan_rollups
        WHERE ${where} AND grain = ${slice.grain} AND bucket >= ${instant(slice.from)} AND bucket < ${instant(slice.to)}`,
  );
  return Prisma.join(slices, " UNION ALL ");
}

/** scan_link_breakdowns' column for each dimension but the total. */
const BREAKDOWN_COLUMNS: Partial<Record<number, Prisma.Sql>> = {
  [DIMENSIONS.country]: Prisma.sql`country`,
  [DIMENSIONS.device]: Prisma.sql`device`,
  [DIMENSIONS.browser]: Prisma.sql`browser`,
  [DIMENSIONS.os]: Prisma.sql`os`,
  [DIMENSIONS.referrer]: Prisma.sql`referrer`,
  [DIMENSIONS.source]: Prisma.sql`source`,
};

/** The combination rows' column of a breakdown. */
function combinationColumn(dimension: FilterDimension): Prisma.Sql {
  return BREAKDOWN_COLUMNS[DIMENSIONS[dimension]]!;
}

/** The combination rows with the request's filter value, or all of them. */
function filterCondition(request: AnalyticsRequest): Prisma.Sql {
  const { filter } = request;
  return filter ? Prisma.sql`AND ${combinationColumn(filter.dimension)} = ${filter.value}` : Prisma.empty;
}

/**
 * A link's combination rows covering the range, with the request's filter: one range scan of the
 * table's key per slice. The link is the request's, or a column of an outer query. Scans written
 * before the table existed are in scan_rollups' dimension rows, which the caller reads beside these
 * where it can (each scan is in exactly one of the two).
 */
function breakdownSlices(
  columns: Prisma.Sql,
  request: AnalyticsRequest,
  range: Range,
  link: Prisma.Sql = Prisma.sql`${request.linkId}`,
): Prisma.Sql {
  const slices = coveringSlices(range.start, range.end, range.closedBefore).map(
    (slice) =>
      Prisma.sql`SELECT ${columns} FROM scan_link_breakdowns
        WHERE workspace_id = ${request.workspaceId} AND link_id = ${link} AND grain = ${slice.grain}
          AND bucket >= ${instant(slice.from)} AND bucket < ${instant(slice.to)} ${filterCondition(request)}`,
  );
  return Prisma.join(slices, " UNION ALL ");
}

/**
 * An instant as a parameter, with its offset written out: the client sends a Date as wall-clock
 * time without one, which the session would read in the request's zone, not as UTC. (For the same
 * reason instants come back from the session as epoch milliseconds, never as Dates.)
 */
function instant(date: Date): Prisma.Sql {
  // Past 9999 JavaScript writes the year with a sign and six digits (+010000-…), which PostgreSQL
  // cannot read; a range ending on 31 December 9999 ends in the year 10000.
  return Prisma.sql`${date.toISOString().replace(/^\+0*/, "")}::timestamptz`;
}

function toRow(row: CountRow): AnalyticsRow {
  return { key: row.key, scans: Number(row.scans), uniques: Number(row.uniques) };
}

function isUnknownTimeZone(error: unknown): boolean {
  const text = String((error as { message?: unknown })?.message ?? "");
  return /invalid value for parameter "TimeZone"|time zone .* not recognized/i.test(text);
}
