import { db } from "@/lib/db/client";
import { writerPool } from "@/lib/db/pool";
import type { ScanRow } from "./enrich";

/**
 * Rollup grains, in minutes: quarter hours cut every time zone's days and hours exactly; UTC days
 * and UTC months (0: a month has no fixed length) make long ranges cheap. The writer below adds to
 * all three in one statement.
 */
export const QUARTER = 15;
export const DAY = 1440;
export const MONTH = 0;

/** Rollup dimensions; 0 is every scan (and the bots, counted apart). */
export const DIMENSIONS = { total: 0, country: 1, device: 2, browser: 3, os: 4, referrer: 5, source: 6 } as const;

/**
 * Writes one batch in ONE statement, so it lands whole or not at all: it claims the batch id (a
 * retry of a batch that was committed writes nothing), records each visitor's first scan of the
 * UTC day per link and per workspace in scan_visitors (the primary key decides across
 * instances), inserts the raw rows, and adds the counts to the quarter-hour, day and month rollups
 * (month = sum of its days, always: they commit together): per link its totals (scan_rollups,
 * dimension 0) and its breakdown rows (scan_link_breakdowns), per workspace every dimension.
 * `rows[i]` stands for `counts[i]` identical scans (the buffer folds a visitor's repeats within a
 * millisecond), and so does its raw row (`scans`); a unique flag on it marks the first of those scans.
 * Scans of a link that no longer exists are left out (its rows would cascade away anyway).
 *
 * The batch's commit is this function's return: the one place where a batch becomes visible.
 * It runs on the scan writer's own connection (lib/db/pool.ts), so visits never wait behind it for one.
 */
export async function writeScanBatch(batchId: string, rows: ScanRow[], counts: number[] = rows.map(() => 1)): Promise<void> {
  if (rows.length === 0) return;
  const column = <T>(pick: (row: ScanRow) => T) => rows.map(pick);
  const client = await writerPool().connect();
  try {
    // PostgreSQL JIT-compiles a statement whose estimated cost runs high, as a big batch's can:
    // seconds of compiling for tens of ms of running. The fan-out's grouping and sorts hold a few
    // hundred thousand rows for the biggest batches: in memory, not spilled to disk (the default
    // 4 MB spilled a batch of 5,000 spread scans in two places).
    await client.query("BEGIN; SET LOCAL jit = off; SET LOCAL work_mem = '64MB'");
    await client.query({
      name: "analytics.write-scan-batch",
      text: WRITE_SCAN_BATCH,
      values: [
        batchId,
        column((row) => row.linkId),
        column((row) => row.host),
        column((row) => row.occurredAt),
        column((row) => row.userAgent),
        column((row) => row.referrerHost),
        column((row) => row.country),
        column((row) => row.viaQr),
        column((row) => row.device),
        column((row) => row.browser),
        column((row) => row.os),
        column((row) => row.bot),
        column((row) => row.visitor),
        counts,
      ],
    });
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
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
 * - raw: n appends, each with a probe of links for its foreign key, O(n log L).
 * - folded: scans alike in every rolled-up column become one row with counts before the fan-out
 *   (fanning out first made 140,000 rows to group for a batch of 5,000), O(n) hashed; f ≤ n rows.
 * - grains: each folded row in its quarter hour, UTC day and UTC month, 3f rows.
 * - breakdowns: the link's rows by combination of values, 3f grouped and sorted, one probe each,
 *   O(f log f + f log B) (B: breakdown rows).
 * - the rollup upsert: the link's totals (3f) and the workspace's 7 dimensions (21f, folded into
 *   few rows: a batch's links share them), grouped and sorted, one probe each, O(f log f + f log R).
 *   A batch spread over many links writes about 6 rows a link, where one row per dimension and
 *   value took 21 (bench/batch-plan.ts).
 * Both upserts go in key order, so concurrent writers take rows in the same order and never
 * deadlock; keys start with the workspace and the link, so a link's rows share a few index pages.
 */
const WRITE_SCAN_BATCH = `
  WITH claimed AS (
    INSERT INTO scan_batches (id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING id
  ),
  input AS (
    SELECT e.*, l.workspace_id, (e.occurred_at AT TIME ZONE 'UTC')::date AS day
    FROM unnest($2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::text[], $7::text[], $8::boolean[], $9::text[], $10::text[], $11::text[], $12::boolean[], $13::text[], $14::integer[])
      WITH ORDINALITY AS e(link_id, host, occurred_at, user_agent, referrer_host, country, via_qr, device, browser, os, bot, visitor, scans, ord)
    JOIN links l ON l.id = e.link_id
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
    INSERT INTO scan_events (link_id, host, occurred_at, user_agent, referrer_host, country, via_qr, device, browser, os, bot, link_unique, workspace_unique, scans)
    SELECT link_id, host, occurred_at, user_agent, referrer_host, country, via_qr, device, browser, os, bot, link_unique, workspace_unique, scans
    FROM flagged ORDER BY ord
  ),
  folded AS (
    SELECT workspace_id, link_id,
      date_bin('15 minutes', occurred_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS quarter, date_trunc('day', occurred_at, 'UTC') AS utc_day,
      coalesce(country, 'unknown') AS country, coalesce(device, 'unknown') AS device, coalesce(browser, 'unknown') AS browser,
      coalesce(os, 'unknown') AS os, coalesce(referrer_host, 'direct') AS referrer, CASE WHEN via_qr THEN 'qr' ELSE 'link' END AS source, bot,
      sum(scans) AS scans, count(*) FILTER (WHERE link_unique) AS link_uniques, count(*) FILTER (WHERE workspace_unique) AS workspace_uniques
    FROM flagged
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
  ),
  grains AS (
    SELECT f.*, g.grain, g.bucket
    FROM folded f
    CROSS JOIN LATERAL (VALUES
      (${QUARTER}::smallint, f.quarter),
      (${DAY}::smallint, f.utc_day),
      (${MONTH}::smallint, date_trunc('month', f.utc_day, 'UTC'))) g(grain, bucket)
  ),
  breakdowns AS (
    INSERT INTO scan_link_breakdowns AS b (workspace_id, link_id, grain, bucket, country, device, browser, os, referrer, source, scans, uniques)
    SELECT workspace_id, link_id, grain, bucket, country, device, browser, os, referrer, source, sum(scans), sum(link_uniques)
    FROM grains WHERE NOT bot
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    ON CONFLICT (workspace_id, link_id, grain, bucket, country, device, browser, os, referrer, source) DO UPDATE
      SET scans = b.scans + excluded.scans, uniques = b.uniques + excluded.uniques
  )
  INSERT INTO scan_rollups AS r (workspace_id, link_id, grain, dimension, bucket, value, scans, uniques, bots)
  SELECT g.workspace_id, s.link_key, g.grain, d.dimension, g.bucket, d.value,
    coalesce(sum(g.scans) FILTER (WHERE NOT g.bot), 0), sum(s.uniques), coalesce(sum(g.scans) FILTER (WHERE g.bot), 0)
  FROM grains g
  CROSS JOIN LATERAL (VALUES (g.link_id, g.link_uniques), ('', g.workspace_uniques)) s(link_key, uniques)
  CROSS JOIN LATERAL (VALUES
    (${DIMENSIONS.total}::smallint, ''),
    (${DIMENSIONS.country}::smallint, g.country),
    (${DIMENSIONS.device}::smallint, g.device),
    (${DIMENSIONS.browser}::smallint, g.browser),
    (${DIMENSIONS.os}::smallint, g.os),
    (${DIMENSIONS.referrer}::smallint, g.referrer),
    (${DIMENSIONS.source}::smallint, g.source)) d(dimension, value)
  WHERE d.dimension = ${DIMENSIONS.total} OR (s.link_key = '' AND NOT g.bot)
  GROUP BY 1, 2, 3, 4, 5, 6
  ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (workspace_id, link_id, grain, dimension, bucket, value) DO UPDATE
    SET scans = r.scans + excluded.scans, uniques = r.uniques + excluded.uniques, bots = r.bots + excluded.bots`;

const DAY_MS = 86_400_000;
/** Visitor sets outlive their day by two (a late batch still finds them); batch claims by as long. */
const VISITOR_DAYS_KEPT = 2;
const PRUNE_CHUNK = 10_000;

export type PrunedScanData = { cutoff: Date; events: number };

/**
 * Deletes raw events older than the retention, then visitor sets and batch claims past their use.
 * The rollups are kept: they answer for every day after its raw rows are gone.
 *
 * No count is lost: a raw row exists only once the statement that wrote it has committed, and that
 * one statement (writeScanBatch above) also added the row to the rollups, so there is never a raw
 * row still waiting to be rolled up. Each chunk is one statement, deleted whole or not at all; the
 * chunks keep each transaction short, and a run cut off (a cron's time limit) leaves the rest for
 * the next. The deletes are idempotent, so instances pruning at the same time only share the work.
 * Instants are sent as ISO strings with their offset, never read in a session's zone.
 */
export async function pruneScanData(retentionDays: number, now: number): Promise<PrunedScanData> {
  const cutoff = new Date(now - retentionDays * DAY_MS);
  let events = 0;
  for (;;) {
    const deleted = await db().$executeRaw`
      DELETE FROM scan_events WHERE id IN (
        SELECT id FROM scan_events WHERE occurred_at < ${cutoff.toISOString()}::timestamptz LIMIT ${PRUNE_CHUNK})`;
    events += deleted;
    if (deleted < PRUNE_CHUNK) break;
  }
  const keptFrom = new Date(now - VISITOR_DAYS_KEPT * DAY_MS).toISOString();
  await db().$executeRaw`DELETE FROM scan_visitors WHERE day < (${keptFrom}::timestamptz AT TIME ZONE 'UTC')::date`;
  await db().$executeRaw`DELETE FROM scan_batches WHERE written_at < ${keptFrom}::timestamptz`;
  return { cutoff, events };
}

/** Each link's scans (bots left out) from the day `since` starts in, read from the day rollups. */
export async function scansPerLinkSince(
  workspaceId: string,
  linkIds: readonly string[],
  since: Date,
): Promise<Map<string, number>> {
  if (linkIds.length === 0) return new Map();
  const rows = await db().scanRollup.groupBy({
    by: ["linkId"],
    where: {
      workspaceId,
      grain: DAY,
      dimension: DIMENSIONS.total,
      value: "",
      linkId: { in: [...linkIds] },
      bucket: { gte: since },
    },
    _sum: { scans: true },
  });
  return new Map(rows.map((row) => [row.linkId, Number(row._sum.scans ?? 0)]));
}
