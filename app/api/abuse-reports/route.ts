import { readJsonBody, validate } from "@/lib/http/body";
import { json } from "@/lib/http/respond";
import { handleErrors } from "@/lib/http/route";
import { abuseReportBody, reportAbuse, reporterOf } from "@/lib/resolution/abuse-reports";

/** Public: anyone may report a short link. The answer never says what the report led to. */
export function POST(request: Request): Promise<Response> {
  return handleErrors(async () => {
    const report = validate(abuseReportBody, await readJsonBody(request), "body");
    await reportAbuse(report, reporterOf(request));
    return json({ received: true }, 202);
  });
}
