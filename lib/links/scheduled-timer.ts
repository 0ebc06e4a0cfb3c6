import { config } from "@/lib/config";
import { repeat, type Schedule } from "@/lib/schedule";
import { applyDueRepoints } from "./scheduled";

/** The self-hosted server's fold of due scheduled repoints (Vercel Cron calls GET /api/cron/repoints instead). */
export function startScheduledRepointTimer(): Schedule {
  return repeat("scheduled repoints", applyDueRepoints, config().SCHEDULED_REPOINT_INTERVAL_SECONDS * 1000);
}
