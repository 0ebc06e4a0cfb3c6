import { DAY_MS, utcDayStart } from "@/lib/clock";
import { inTransaction } from "@/lib/db/checkout";
import { isLockNotAvailable } from "@/lib/db/errors";
import { pool } from "@/lib/db/pool";
import { DAY, DIMENSIONS, MONTH, QUARTER, ROLLUP_DAYS_LOCK, SERVED_DEFAULT } from "./rollups";

/**
 * The fold: scans into their rollups, set-based (the batch statement's fan-out, shared with the
 * closing), and each ended UTC day's scans into its day and month rows, once.
 */

/**
 * From the batch's or the day's scans (a CTE `flagged`: a link's and its workspace's ids, the scan's
 * columns and unique flags) to the rollups, for the grains `grains` keeps (a condition on g.grain
 * and f.utc_day): the steps after `raw` in the complexity list above. `alsoFirst` names the
 * statement's other writing CTEs (each with RETURNING). With `answer`, the workspace's upsert
 * becomes the CTE `workspace_rollups` too, and the statement answers with the SELECT `answer` makes
 * of a condition that holds once every write is done (its InitPlan runs them all first).
 *
 * The rows every batch shares, the workspace's, are upserted last: the statement's one
 * InitPlan-gated step runs every other write to completion first (breakdowns, the links' rows and
 * `alsoFirst`, in that order), so a concurrent writer waits for them only from there to the
 * commit, not for the whole statement. Every write takes its rows in key order, and the steps run
 * in the same order in every statement, so concurrent writers never deadlock.
 */
export function rollupFanOut(grains: string, alsoFirst: string[] = [], answer?: (writesDone: string) => string): string {
  const writtenFirst = ["breakdowns", "link_rollups", ...alsoFirst].map((step) => `(SELECT count(*) FROM ${step})`);
  const workspaceUpsert = rollupUpsert(`
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
    WHERE (d.dimension = ${DIMENSIONS.total} OR NOT w.bot) AND ${writtenFirst.join(" + ")} >= 0`);
  const last =
    answer === undefined
      ? workspaceUpsert
      : `, workspace_rollups AS (
    ${workspaceUpsert}
    RETURNING 1
  )
  ${answer("(SELECT count(*) FROM workspace_rollups) >= 0")}`;
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
  )${answer === undefined ? "\n  " : ""}${last}`;
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
    if (isLockNotAvailable(error)) return false;
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
