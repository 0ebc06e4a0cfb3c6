import { listAbuseQueue } from "@/lib/abuse/operations";
import { abuseQueue } from "@/lib/abuse/service";
import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";

/** The operator's review queue: links with pending abuse reports, most distinct reporters first. */
export const GET = apiRoute(listAbuseQueue, async ({ query, reply }) => reply(200, await abuseQueue(query)));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
