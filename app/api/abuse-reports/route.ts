import { abuseReportBody } from "@/lib/abuse/schemas";
import { reportAbuse } from "@/lib/abuse/service";
import { readJsonBody, validate } from "@/lib/http/body";
import { clientAddress } from "@/lib/http/client-address";
import { json } from "@/lib/http/respond";
import { handleErrors } from "@/lib/http/route";

/** Public: anyone may report a short link. The answer never says what the report led to. */
export function POST(request: Request): Promise<Response> {
  return handleErrors(async () => {
    const report = validate(abuseReportBody, await readJsonBody(request), "body");
    await reportAbuse(report, clientAddress(request));
    return json({ received: true }, 202);
  });
}
