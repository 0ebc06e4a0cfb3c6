import { clock } from "@/lib/clock";
import { config } from "@/lib/config";
import { csvTable } from "@/lib/http/csv";
import { getLink } from "@/lib/links/service";
import { requirePermission } from "@/lib/workspaces/permissions";
import type { Principal } from "@/lib/workspaces/types";
import { readAnalytics, recentScansByLink } from "./store";
import type { AnalyticsQuery, AnalyticsReport, ScanRetentionRun } from "./schemas";
import { pruneScanData } from "./store";

/**
 * Scan counts for one link of the caller's workspace, or for the whole workspace. Every role
 * reads them, with or without an active subscription (the data is already collected); a link of
 * another workspace is not found.
 */
export async function scanAnalytics(principal: Principal, query: AnalyticsQuery): Promise<AnalyticsReport> {
  requirePermission(principal, "analytics.read", "Your role in this workspace does not allow reading analytics.");
  if (query.link_id) await getLink(principal, query.link_id);
  return readAnalytics({
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
export function listScanCounts(principal: Principal) {
  requirePermission(principal, "analytics.read", "Your role in this workspace does not allow reading analytics.");
  return recentScansByLink(principal.workspaceId, LIST_SCAN_DAYS, new Date(clock().now()));
}

/** The report's rows as CSV: a header line, then key, scans, uniques. */
export function analyticsCsv(report: AnalyticsReport): string {
  return csvTable(
    ["key", "scans", "uniques"],
    report.data.map((row) => [row.key, row.scans, row.uniques]),
  );
}

/** Applies the retention now: Vercel Cron calls it through GET /api/cron/scan-retention, the self-hosted server on a timer. */
export async function applyScanRetention(): Promise<ScanRetentionRun> {
  const retentionDays = config().SCAN_RETENTION_DAYS;
  const { cutoff, events } = await pruneScanData(retentionDays, clock().now());
  return { retention_days: retentionDays, deleted_before: cutoff.toISOString(), events_deleted: events };
}
