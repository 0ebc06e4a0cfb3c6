import { getAnalytics } from "@/lib/analytics/operations";
import { analyticsDownload, scanAnalytics } from "@/lib/analytics/service";
import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";

export const GET = apiRoute(getAnalytics, async ({ principal, query, reply }) => {
  const report = await scanAnalytics(principal, query);
  if (query.format === "json") return reply(200, report);
  return analyticsDownload(report);
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
