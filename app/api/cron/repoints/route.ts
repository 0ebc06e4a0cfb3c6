import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { applyScheduledRepoints } from "@/lib/links/operations";
import { applyDueRepoints } from "@/lib/links/scheduled";

/** Vercel Cron's call to the fold of due scheduled repoints; it sends `Authorization: Bearer <CRON_SECRET>`. */
export const GET = apiRoute(applyScheduledRepoints, async ({ reply }) => reply(200, await applyDueRepoints()));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
