import Link from "next/link";
import { requireDashboard } from "@/lib/api/dashboard";
import { AnalyticsView } from "./analytics-view";
import { ViewerTimeZone } from "./viewer-time-zone";
import { viewerZone } from "./viewer-zone";

type Search = Record<string, string | string[] | undefined>;

export default async function AnalyticsPage({ searchParams }: { searchParams: Promise<Search> }) {
  const { principal } = await requireDashboard("/dashboard/analytics");
  const search = Object.fromEntries(
    Object.entries(await searchParams).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
  const { reported, zone } = await viewerZone();
  return (
    <div className="space-y-6">
      <ViewerTimeZone current={reported} />
      <h1 className="m-0 text-2xl font-bold">Analytics</h1>
      {search.link_id && (
        <p className="m-0 text-sm">
          One link&apos;s scans: <Link href={`/dashboard/links/${encodeURIComponent(search.link_id)}`}>back to the link</Link> ·{" "}
          <Link href="/dashboard/analytics">the whole workspace</Link>
        </p>
      )}
      <AnalyticsView principal={principal} search={search} zone={zone} />
    </div>
  );
}
