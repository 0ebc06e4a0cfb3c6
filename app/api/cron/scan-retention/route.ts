import { pruneScanEvents } from "@/lib/analytics/operations";
import { applyScanRetention } from "@/lib/analytics/service";
import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";

/** Vercel Cron's call to the scan retention; it sends `Authorization: Bearer <CRON_SECRET>`. */
export const GET = apiRoute(pruneScanEvents, async ({ reply }) => reply(200, await applyScanRetention()));

/** Closing a busy day reads its raw rows once: more than Vercel's default allows. */
export const maxDuration = 60;

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
