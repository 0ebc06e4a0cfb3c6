import { pruneScanEvents } from "@/lib/analytics/operations";
import { applyScanRetention } from "@/lib/analytics/service";
import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";

/** Vercel Cron's call to the scan retention; it sends `Authorization: Bearer <CRON_SECRET>`. */
export const GET = apiRoute(pruneScanEvents, async () => json(await applyScanRetention()));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
