import { clock } from "@/lib/clock";
import { db, type DbClient } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { DomainError } from "@/lib/http/errors";
import { type AnalyticsReport, type AnalyticsRow, type GroupBy, isDateOnly } from "./schemas";
import { DAY, DIMENSIONS, MONTH, QUARTER } from "./store";

export type AnalyticsRequest = {
  workspaceId: string;
  /** One link, or null for the whole workspace. */
  linkId: string | null;
  groupBy: GroupBy;
  start?: string;
  end?: string;
  timezone: string;
};

const DAY_MS = 86_400_000;
/** Longest range answered: ten years of days, or a year of hours. */
const MAX_RANGE_DAYS = 3660;
const MAX_HOUR_RANGE_DAYS = 366;
const DEFAULT_RANGE = "30 days";
const QUARTER_ORIGIN = Prisma.sql`TIMESTAMPTZ '2000-01-01 00:00:00+00'`;

type Range = { start: Date; end: Date; startLabel: string; endLabel: string };
type CountRow = { key: string; scans: bigint; uniques: bigint };

/**
 * One transaction whose session time zone is the request's, so PostgreSQL cuts days and hours
 * in that zone (offsets of half and quarter hours, and daylight saving, included).
 */
export async function readAnalytics(request: AnalyticsRequest): Promise<AnalyticsReport> {
  try {
    return await db().$transaction(async (tx) => {
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
  return { start, end, startLabel: row!.start_label, endLabel: row!.end_label };
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
      SELECT sum(scans) AS scans, sum(uniques) AS uniques
      FROM scan_rollups
      WHERE ${scopeOf(request)} AND grain = ${QUARTER} AND dimension = ${DIMENSIONS.total}
        AND bucket >= series.counted_from AND bucket < series.counted_to
    ) counts
    ORDER BY series.b`;
  return rows.map(toRow);
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
    FROM generate_series(${instant(range.start)}::date::timestamp, (${instant(range.end)} - interval '1 microsecond')::date::timestamp, interval '1 day') d`;
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
  if (request.groupBy === "link" && !request.linkId) return byLink(tx, request, range);
  const dimension =
    request.groupBy === "link" ? DIMENSIONS.total : DIMENSIONS[request.groupBy as Exclude<GroupBy, "day" | "hour" | "link">];
  const keyColumn = request.groupBy === "link" ? Prisma.sql`link_id` : Prisma.sql`value`;
  const dimensionRows = rollupSlices(
    Prisma.sql`${keyColumn} AS key, scans, uniques`,
    Prisma.sql`${scopeOf(request)} AND dimension = ${dimension}`,
    range,
  );
  const breakdownColumn = BREAKDOWN_COLUMNS[dimension];
  const slices =
    request.linkId && breakdownColumn
      ? Prisma.sql`${dimensionRows} UNION ALL ${breakdownSlices(breakdownColumn, request, range)}`
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
 * The workspace's links: each slice is one range scan of scan_rollups_link_totals_idx (grain,
 * bucket, then link), so a year reads its months and edge days for every link at once instead of
 * one index probe per link and slice. The index is partial: the conditions on dimension and
 * link_id are written out so the planner matches them.
 */
async function byLink(tx: DbClient, request: AnalyticsRequest, range: Range): Promise<AnalyticsRow[]> {
  const linkTotals = Prisma.sql`workspace_id = ${request.workspaceId} AND dimension = 0 AND link_id <> ''`;
  const rows = await tx.$queryRaw<CountRow[]>`
    SELECT link_id AS key, sum(scans)::bigint AS scans, sum(uniques)::bigint AS uniques
    FROM (${rollupSlices(Prisma.sql`link_id, scans, uniques`, linkTotals, range)}) slices
    GROUP BY link_id
    HAVING sum(scans) > 0
    ORDER BY sum(scans) DESC, link_id`;
  return rows.map(toRow);
}

async function totalOf(tx: DbClient, request: AnalyticsRequest, range: Range): Promise<AnalyticsReport["total"]> {
  const [row] = await tx.$queryRaw<{ scans: bigint | null; uniques: bigint | null; bots: bigint | null }[]>`
    SELECT sum(scans)::bigint AS scans, sum(uniques)::bigint AS uniques, sum(bots)::bigint AS bots
    FROM (${rollupSlices(Prisma.sql`scans, uniques, bots`, Prisma.sql`${scopeOf(request)} AND dimension = ${DIMENSIONS.total}`, range)}) slices`;
  return { scans: Number(row?.scans ?? 0), uniques: Number(row?.uniques ?? 0), bots: Number(row?.bots ?? 0) };
}

/**
 * A subquery of (link_id, scans): each link of the workspace with scans (bots apart) in the last
 * `days` UTC days up to the end of today, the range and rows the workspace's analytics by link
 * reads by default, so a list ordered by it shows the same numbers. Links without scans are absent.
 */
export function recentScansByLink(workspaceId: string, days: number, now: Date): Prisma.Sql {
  const end = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS + DAY_MS);
  const range = { start: new Date(end.getTime() - days * DAY_MS), end };
  const linkTotals = Prisma.sql`workspace_id = ${workspaceId} AND dimension = 0 AND link_id <> ''`;
  return Prisma.sql`SELECT link_id, sum(scans)::bigint AS scans FROM (${rollupSlices(Prisma.sql`link_id, scans`, linkTotals, range)}) slices GROUP BY link_id`;
}

/** One grain's buckets in [from, to). */
export type RollupSlice = { grain: number; from: Date; to: Date };

/**
 * The rollup buckets covering [start, end) exactly with as few rows as possible: whole UTC months
 * from the month grain, the whole UTC days around them from the day grain, the ragged edges (less
 * than a day each side) from the quarter-hour grain. start and end are quarter hours, and every
 * month and day starts on one, so the slices meet without gap or overlap; empty ones are left out.
 */
export function coveringSlices(start: Date, end: Date): RollupSlice[] {
  const firstDay = new Date(Math.ceil(start.getTime() / DAY_MS) * DAY_MS);
  const lastDay = new Date(Math.floor(end.getTime() / DAY_MS) * DAY_MS);
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
function rollupSlices(columns: Prisma.Sql, where: Prisma.Sql, range: Pick<Range, "start" | "end">): Prisma.Sql {
  const slices = coveringSlices(range.start, range.end).map(
    (slice) =>
      Prisma.sql`SELECT ${columns} FROM scan_rollups WHERE ${where} AND grain = ${slice.grain} AND bucket >= ${instant(slice.from)} AND bucket < ${instant(slice.to)}`,
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

/**
 * A link's breakdown rows covering the range, by one of their columns: one range scan of the
 * table's key per slice. Scans written before the table existed are in scan_rollups' dimension
 * rows, which the caller reads beside these (each scan is in exactly one of the two).
 */
function breakdownSlices(column: Prisma.Sql, request: AnalyticsRequest, range: Range): Prisma.Sql {
  const slices = coveringSlices(range.start, range.end).map(
    (slice) =>
      Prisma.sql`SELECT ${column} AS key, scans, uniques FROM scan_link_breakdowns WHERE ${scopeOf(request)} AND grain = ${slice.grain} AND bucket >= ${instant(slice.from)} AND bucket < ${instant(slice.to)}`,
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
