import * as abuseOperations from "@/lib/abuse/operations";
import { reportAbuse } from "@/lib/abuse/service";
import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { clientAddress } from "@/lib/http/client-address";

/** Public: anyone may report a short link. The answer never says what the report led to. */
export const POST = apiRoute(abuseOperations.reportAbuse, async ({ request, body, reply }) => {
  await reportAbuse(body, clientAddress(request));
  return reply(202, { received: true });
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
