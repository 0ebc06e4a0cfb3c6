import { listAbuseQueue } from "@/lib/abuse/operations";
import { abuseQueue } from "@/lib/abuse/service";
import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";

/** The operator's review queue: links with pending abuse reports, most distinct reporters first. */
export const GET = apiRoute(listAbuseQueue, async ({ query }) => json(await abuseQueue(query)));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
