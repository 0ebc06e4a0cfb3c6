import { cookies } from "next/headers";
import { isTimeZoneName } from "@/lib/analytics/schemas";
import { requireDashboard } from "@/lib/api/dashboard";
import { AnalyticsView } from "./analytics-view";
import { TIME_ZONE_COOKIE } from "./range";
import { ViewerTimeZone } from "./viewer-time-zone";

type Search = Record<string, string | string[] | undefined>;

export default async function AnalyticsPage({ searchParams }: { searchParams: Promise<Search> }) {
  const { principal } = await requireDashboard("/dashboard/analytics");
  const search = Object.fromEntries(Object.entries(await searchParams).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  const zoneCookie = (await cookies()).get(TIME_ZONE_COOKIE)?.value;
  return (
    <div className="space-y-6">
      <ViewerTimeZone current={zoneCookie} />
      <h1 className="m-0 text-2xl font-bold">Analytics</h1>
      <AnalyticsView principal={principal} search={search} zone={zoneCookie && isTimeZoneName(zoneCookie) ? zoneCookie : "UTC"} />
    </div>
  );
}

