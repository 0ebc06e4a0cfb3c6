import type { DbClient } from "@/lib/db/client";

/**
 * What the scan tables' parts share: the rollups' grains and dimensions, and the closing state
 * every read and the retention consult (docs/adr/0009-closed-days.md).
 */

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
export const SERVED_DEFAULT = "default";

/**
 * Taken shared by every batch write and exclusively to move daily_from, so a batch that read the
 * old value has committed before the closing sums the day's raw rows.
 */
export const ROLLUP_DAYS_LOCK = 7206104303;

/** The first instant whose UTC day is not closed yet: analytics read whole days from day and month rows only before it. */
export async function rollupsClosedBefore(client: DbClient): Promise<Date> {
  const [row] = await client.$queryRaw<{ closed_ms: number }[]>`
    SELECT extract(epoch FROM closed_before)::float8 * 1000 AS closed_ms FROM scan_rollup_days`;
  return row ? new Date(row.closed_ms) : FOREVER;
}

/** No closing state at all (a database restored without it): the writer then adds every scan to every grain itself. */
const FOREVER = new Date(8_640_000_000_000_000);
