import { getAnalytics } from "@/lib/analytics/operations";
import { analyticsDownload, scanAnalytics } from "@/lib/analytics/service";
import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";

/** GET /api/analytics for the signed-in dashboard (its CSV download): the same query, checks and rows. */
export const GET = apiRoute({ ...getAnalytics, auth: "dashboard" }, async ({ principal, query, reply }) => {
  const report = await scanAnalytics(principal, query);
  if (query.format === "json") return reply(200, report);
  return analyticsDownload(report);
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
