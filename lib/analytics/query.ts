import { clock } from "@/lib/clock";
import { db, type DbClient } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { DomainError } from "@/lib/http/errors";
import { type AnalyticsReport, type AnalyticsRow, type GroupBy, isDateOnly } from "./schemas";
import { DAY, DIMENSIONS, QUARTER } from "./store";

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
      const data = request.groupBy === "day" || request.groupBy === "hour" ? await timeSeries(tx, request, range) : await breakdown(tx, request, range);
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
    if (isUnknownTimeZone(error)) throw new DomainError("invalid_request", `The query string field "timezone" names a zone this database does not know: ${request.timezone}.`);
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
    ? isDateOnly(request.end) ? Prisma.sql`(${request.end}::date + 1)::timestamptz` : Prisma.sql`${request.end}::timestamptz`
    : Prisma.sql`(date_trunc('day', ${now}::timestamptz) + interval '1 day')`;
  const startExpression = request.start
    ? isDateOnly(request.start) ? Prisma.sql`${request.start}::date::timestamptz` : Prisma.sql`${request.start}::timestamptz`
    : Prisma.sql`(${endExpression} - ${DEFAULT_RANGE}::interval)`;
  const [row] = await tx.$queryRaw<{ start: Date; end: Date; start_label: string; end_label: string }[]>`
    WITH snapped AS (
      SELECT date_bin('15 minutes', ${startExpression}, ${QUARTER_ORIGIN}) AS s,
             date_bin('15 minutes', ${endExpression} + interval '15 minutes' - interval '1 microsecond', ${QUARTER_ORIGIN}) AS e
    )
    SELECT s AS start, e AS end,
      to_char(s, 'YYYY-MM-DD"T"HH24:MI:SSTZH:TZM') AS start_label, to_char(e, 'YYYY-MM-DD"T"HH24:MI:SSTZH:TZM') AS end_label
    FROM snapped`;
  const { start, end } = row!;
  if (start >= end) throw new DomainError("invalid_request", "The range is empty: start must come before end.");
  const limit = request.groupBy === "hour" ? MAX_HOUR_RANGE_DAYS : MAX_RANGE_DAYS;
  if (end.getTime() - start.getTime() > limit * DAY_MS) {
    throw new DomainError("invalid_request", `The range is too long: at most ${limit} days${request.groupBy === "hour" ? " when grouping by hour" : ""}.`);
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
  const unit = request.groupBy === "day" ? "day" : "hour";
  const step = request.groupBy === "day" ? "1 day" : "1 hour";
  const label = request.groupBy === "day" ? "YYYY-MM-DD" : 'YYYY-MM-DD"T"HH24:MI:SSTZH:TZM';
  const rows = await tx.$queryRaw<CountRow[]>`
    WITH series AS (
      SELECT b, greatest(b, ${range.start}::timestamptz) AS counted_from, least(b + ${step}::interval, ${range.end}::timestamptz) AS counted_to
      FROM generate_series(date_trunc(${unit}, ${range.start}::timestamptz), ${range.end}::timestamptz - interval '1 microsecond', ${step}::interval) b
    )
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

/** Counts by a dimension (or by link), most scans first; values with no scans in the range are left out. */
async function breakdown(tx: DbClient, request: AnalyticsRequest, range: Range): Promise<AnalyticsRow[]> {
  if (request.groupBy === "link" && !request.linkId) return byLink(tx, request, range);
  const dimension = request.groupBy === "link" ? DIMENSIONS.total : DIMENSIONS[request.groupBy as Exclude<GroupBy, "day" | "hour" | "link">];
  const keyColumn = request.groupBy === "link" ? Prisma.sql`link_id` : Prisma.sql`value`;
  const rows = await tx.$queryRaw<CountRow[]>`
    SELECT key, sum(scans)::bigint AS scans, sum(uniques)::bigint AS uniques
    FROM (${rollupSlices(scopeOf(request), dimension, keyColumn, range)}) slices
    GROUP BY key
    HAVING sum(scans) > 0
    ORDER BY sum(scans) DESC, key`;
  return rows.map(toRow);
}

/**
 * The workspace's links, each summed over its own slices (a lateral join per link): with the
 * link's id fixed, every slice stays a range scan of the primary key.
 */
async function byLink(tx: DbClient, request: AnalyticsRequest, range: Range): Promise<AnalyticsRow[]> {
  const scope = Prisma.sql`workspace_id = ${request.workspaceId} AND link_id = l.id`;
  const rows = await tx.$queryRaw<CountRow[]>`
    SELECT l.id AS key, sum(s.scans)::bigint AS scans, sum(s.uniques)::bigint AS uniques
    FROM links l CROSS JOIN LATERAL (${rollupSlices(scope, DIMENSIONS.total, Prisma.sql`value`, range)}) s
    WHERE l.workspace_id = ${request.workspaceId}
    GROUP BY l.id
    HAVING sum(s.scans) > 0
    ORDER BY sum(s.scans) DESC, l.id`;
  return rows.map(toRow);
}

async function totalOf(tx: DbClient, request: AnalyticsRequest, range: Range): Promise<AnalyticsReport["total"]> {
  const [row] = await tx.$queryRaw<{ scans: bigint | null; uniques: bigint | null; bots: bigint | null }[]>`
    SELECT sum(scans)::bigint AS scans, sum(uniques)::bigint AS uniques, sum(bots)::bigint AS bots
    FROM (${rollupSlices(scopeOf(request), DIMENSIONS.total, Prisma.sql`value`, range)}) slices`;
  return { scans: Number(row?.scans ?? 0), uniques: Number(row?.uniques ?? 0), bots: Number(row?.bots ?? 0) };
}

/**
 * The rollup rows covering [start, end) exactly with as few rows as possible: whole UTC days from
 * the day grain, the ragged edges (at most a day each side) from the quarter-hour grain. Three
 * range scans of the primary key.
 */
function rollupSlices(scope: Prisma.Sql, dimension: number, keyColumn: Prisma.Sql, range: Range): Prisma.Sql {
  const { start, end } = range;
  let firstDay = new Date(Math.ceil(start.getTime() / DAY_MS) * DAY_MS);
  let lastDay = new Date(Math.floor(end.getTime() / DAY_MS) * DAY_MS);
  if (firstDay >= lastDay) firstDay = lastDay = end;
  const slice = (grain: number, from: Date, to: Date) => Prisma.sql`
    SELECT ${keyColumn} AS key, scans, uniques, bots FROM scan_rollups
    WHERE ${scope} AND grain = ${grain} AND dimension = ${dimension} AND bucket >= ${from} AND bucket < ${to}`;
  return Prisma.sql`${slice(DAY, firstDay, lastDay)} UNION ALL ${slice(QUARTER, start, firstDay)} UNION ALL ${slice(QUARTER, lastDay, end)}`;
}

function toRow(row: CountRow): AnalyticsRow {
  return { key: row.key, scans: Number(row.scans), uniques: Number(row.uniques) };
}

function isUnknownTimeZone(error: unknown): boolean {
  const text = String((error as { message?: unknown })?.message ?? "");
  return /invalid value for parameter "TimeZone"|time zone .* not recognized/i.test(text);
}
