import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { cleanUpOAuth } from "@/lib/oauth/operations";
import { cleanUpSpentOAuth } from "@/lib/oauth/service";

/** Vercel Cron's call to the OAuth cleanup; it sends `Authorization: Bearer <CRON_SECRET>`. */
export const GET = apiRoute(cleanUpOAuth, async ({ reply }) => reply(200, await cleanUpSpentOAuth()));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
