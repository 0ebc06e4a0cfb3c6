import { requireOperatorToken } from "@/lib/abuse/operator-token";
import { abuseQueueQuery } from "@/lib/abuse/schemas";
import { abuseQueue } from "@/lib/abuse/service";
import { validate } from "@/lib/http/body";
import { json } from "@/lib/http/respond";
import { handleErrors } from "@/lib/http/route";

/** The operator's review queue: links with pending abuse reports, most distinct reporters first. */
export function GET(request: Request): Promise<Response> {
  return handleErrors(async () => {
    requireOperatorToken(request);
    const query = validate(abuseQueueQuery, Object.fromEntries(new URL(request.url).searchParams), "query");
    return json(await abuseQueue(query));
  });
}
