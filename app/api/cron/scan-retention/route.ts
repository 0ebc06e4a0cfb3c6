import { pruneScanEvents } from "@/lib/analytics/operations";
import { applyScanRetention } from "@/lib/analytics/service";
import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";

/** Vercel Cron's call to the scan retention; it sends `Authorization: Bearer <CRON_SECRET>`. */
export const GET = apiRoute(pruneScanEvents, async ({ reply }) => reply(200, await applyScanRetention()));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
