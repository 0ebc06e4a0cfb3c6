import { foundOrNotFound, requireDashboard } from "@/lib/api/dashboard";
import { shortUrl } from "@/lib/links/present";
import { getLink } from "@/lib/links/service";
import Link from "next/link";
import { dashboardTitle } from "../page-title";
import { AnalyticsView } from "./analytics-view";
import { ViewerTimeZone } from "./viewer-time-zone";
import { viewerZone } from "./viewer-zone";

export const generateMetadata = () => dashboardTitle("Analytics");

type Search = Record<string, string | string[] | undefined>;

export default async function AnalyticsPage({ searchParams }: { searchParams: Promise<Search> }) {
  const { principal } = await requireDashboard("/dashboard/analytics");
  const search = Object.fromEntries(
    Object.entries(await searchParams).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
  const { reported, zone } = await viewerZone();
  // Looked up before anything streams: a link that is not there (or not this workspace's) answers
  // 404 with the dashboard's "Nothing here" page. The reports stream in under their own loading state.
  const link = search.link_id ? await foundOrNotFound(getLink(principal, search.link_id)) : null;
  const workspaceSearch = Object.fromEntries(Object.entries(search).filter(([key]) => key !== "link_id"));
  return (
    <div className="space-y-6">
      <ViewerTimeZone current={reported} />
      <h1 className="m-0 break-all text-2xl font-bold">
        {link ? `Analytics: ${shortUrl(link).replace(/^https?:\/\//, "")}` : "Analytics"}
      </h1>
      {link && (
        <p className="m-0 text-sm">
          <span className="break-all">Leads to {link.destination}</span> ·{" "}
          <Link href={`/dashboard/links/${link.id}`}>the link&apos;s page</Link> ·{" "}
          <Link href={`/dashboard/analytics?${new URLSearchParams(workspaceSearch)}`}>the whole workspace</Link>
        </p>
      )}
      <AnalyticsView principal={principal} search={search} zone={zone} />
    </div>
  );
}
