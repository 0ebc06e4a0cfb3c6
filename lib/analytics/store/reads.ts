import { clock, DAY_MS, utcDayStart } from "@/lib/clock";
import { readDb, type DbClient } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { DomainError } from "@/lib/http/errors";
import {
  isDateOnly,
  type AnalyticsFilter,
  type AnalyticsReport,
  type AnalyticsRow,
  type FilterDimension,
  type GroupBy,
} from "../schemas";
import { DAY, DIMENSIONS, MONTH, QUARTER, rollupsClosedBefore, SERVED_DEFAULT } from "./rollups";

/** The reads: GET /api/analytics's answers, and the scans per link the links list and exports show. */

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
