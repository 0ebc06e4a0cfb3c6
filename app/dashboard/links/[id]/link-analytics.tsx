import type { Principal } from "@/lib/workspaces/types";
import Link from "next/link";
import { analyticsHref, BREAKDOWNS, ScanReports } from "../../analytics/analytics-view";
import { rangeFor } from "../../analytics/range";
import { ViewerTimeZone } from "../../analytics/viewer-time-zone";
import { viewerZone } from "../../analytics/viewer-zone";

/** Where a link's visits come from; the analytics page adds browsers, QR vs link, other ranges and the CSV. */
const LINK_BREAKDOWNS = BREAKDOWNS.filter(
  (breakdown) => breakdown.groupBy === "country" || breakdown.groupBy === "device" || breakdown.groupBy === "referrer",
);

/**
 * The link's scans over the last 30 days by day, cut in the viewer's time zone, and its top countries,
 * devices and referrers; a row opens the analytics page for the link narrowed to that value.
 */
export async function LinkAnalytics({ principal, linkId }: { principal: Principal; linkId: string }) {
  const { reported, zone } = await viewerZone();
  const range = rangeFor("30d", {}, zone, new Date());
  return (
    <section aria-labelledby="link-analytics-heading" className="space-y-4">
      <ViewerTimeZone current={reported} />
      <div className="flex flex-wrap items-baseline justify-between gap-3">
        <h2 id="link-analytics-heading" className="m-0 text-lg">
          Analytics: the last 30 days
        </h2>
        <Link href={`/dashboard/analytics?link_id=${encodeURIComponent(linkId)}`} className="text-sm">
          Other ranges, browsers and CSV
        </Link>
      </div>
      <ScanReports
        principal={principal}
        scope={{ start: range.start, end: range.end, timezone: zone, link_id: linkId }}
        series="day"
        breakdowns={LINK_BREAKDOWNS}
        level={3}
        filterHref={analyticsHref({ link_id: linkId, range: "30d" })}
      />
    </section>
  );
}
