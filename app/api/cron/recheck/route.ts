import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import * as resolutionOperations from "@/lib/resolution/operations";
import { recheckLinks } from "@/lib/resolution/recheck";

/** Vercel Cron's call to the background re-check; it sends `Authorization: Bearer <CRON_SECRET>`. */
export const GET = apiRoute(resolutionOperations.recheckLinks, async ({ reply }) => reply(200, await recheckLinks()));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
