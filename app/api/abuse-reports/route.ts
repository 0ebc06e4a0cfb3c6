import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";
import { reportAbuse, reporterOf } from "@/lib/resolution/abuse-reports";
import { reportAbuse as reportAbuseOperation } from "@/lib/resolution/operations";

/** Public: anyone may report a short link. The answer never says what the report led to. */
export const POST = apiRoute(reportAbuseOperation, async ({ request, body }) => {
  await reportAbuse(body, reporterOf(request));
  return json({ received: true }, 202);
});
