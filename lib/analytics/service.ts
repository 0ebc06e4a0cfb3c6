import { clock, DAY_MS } from "@/lib/clock";
import { config } from "@/lib/config";
import { csvTable } from "@/lib/http/csv";
import { DomainError } from "@/lib/http/errors";
import { getLink } from "@/lib/links/service";
import { log } from "@/lib/log";
import { requirePermission } from "@/lib/workspaces/permissions";
import type { Principal } from "@/lib/workspaces/types";
import { type AnalyticsQuery, type AnalyticsReport, filterOf, type ScanRetentionRun } from "./schemas";
import { type ClosedScanDays, closeScanDays } from "./store/fold";
import { createScanPartitionsAhead, pruneScanData } from "./store/partitions";
import { readAnalytics, recentScansByLink } from "./store/reads";

/**
 * Scan counts for one link of the caller's workspace, or for the whole workspace, of every scan or
 * of one value of a breakdown (a filter). Every role reads them, with or without an active
 * subscription (the data is already collected); a link of another workspace is not found.
 */
export async function scanAnalytics(principal: Principal, query: AnalyticsQuery): Promise<AnalyticsReport> {
  requirePermission(principal, "analytics.read", "Your role in this workspace does not allow reading analytics.");
  const filter = filterOf(query);
  if (filter && query.group_by === "served")
    throw new DomainError(
      "invalid_request",
      `group_by=served cannot be combined with a ${filter.dimension} filter: which destination served is counted ` +
        "apart from a visit's country, device, browser, OS, referrer and source.",
    );
  if (query.link_id) await getLink(principal, query.link_id);
  return readAnalytics({
    filter,
    workspaceId: principal.workspaceId,
    linkId: query.link_id ?? null,
    groupBy: query.group_by,
    start: query.start,
    end: query.end,
    timezone: query.timezone,
  });
}

/** Days of scans the links list shows and sorts by. */
export const LIST_SCAN_DAYS = 30;

/** The scans of each link over the list's days, as a subquery the links list joins to show and sort by them. */
export async function listScanCounts(principal: Principal) {
  requirePermission(principal, "analytics.read", "Your role in this workspace does not allow reading analytics.");
  return recentScansByLink(principal.workspaceId, LIST_SCAN_DAYS, new Date(clock().now()));
}

/** The report as the attachment both doors send (the API's route and the dashboard's download): its rows as CSV. */
export function analyticsDownload(report: AnalyticsReport): Response {
  return new Response(analyticsCsv(report), {
    headers: {
      "Cache-Control": "no-store",
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="analytics-${report.group_by}.csv"`,
    },
  });
}

/** The report's rows as CSV: a header line, then key, scans, uniques. */
export function analyticsCsv(report: AnalyticsReport): string {
  return csvTable(
    ["key", "scans", "uniques"],
    report.data.map((row) => [row.key, row.scans, row.uniques]),
  );
}

/**
 * Applies the retention now: Vercel Cron calls it through GET /api/cron/scan-retention, the self-hosted server on a timer.
 * It also creates the raw events' day partitions ahead (lib/analytics/store/partitions.ts), then drops the expired ones.
 */
export async function applyScanRetention(): Promise<ScanRetentionRun> {
  const retentionDays = config().SCAN_RETENTION_DAYS;
  const now = clock().now();
  const ahead = await createScanPartitionsAhead(now);
  const days = await closeScanDays(now);
  const { cutoff, events, partitionsDropped, partitionsLocked } = await pruneScanData(retentionDays, now);
  if (!days.locked)
    log().warn(
      "The scans being written kept the day rollups' lock, so today's start was not marked this run; the next run tries again",
    );
  if (ahead.created.length > 0 || partitionsDropped.length > 0)
    log().info(
      { created: ahead.created, dropped: partitionsDropped },
      "Raw scan partitions created ahead and dropped past the retention",
    );
  if (!ahead.locked || !partitionsLocked)
    log().warn(
      "The raw scan table stayed busy, so partitions were not created or detached this run: the " +
        "default partition and row deletion stood in; the next run tries again",
    );
  return { retention_days: retentionDays, deleted_before: cutoff.toISOString(), events_deleted: events };
}

/**
 * Closes every UTC day up to and including today, so scans written for the rest of today go to their
 * day and month rows as they are written (docs/adr/0009-closed-days.md). Safe at any time; run it
 * (`npm run close-scan-days`) before rolling back below the release that closes days, whose
 * predecessors read whole days from day rows and never close one.
 */
export function closeScanDaysThroughToday(): Promise<ClosedScanDays> {
  return closeScanDays(clock().now() + DAY_MS);
}
