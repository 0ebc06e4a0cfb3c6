import { config } from "@/lib/config";
import { repeat, type Schedule } from "@/lib/schedule";
import { recheckLinks } from "./recheck";

/** The self-hosted server's schedule for the background re-check (Vercel Cron calls the route instead). */
export function startRecheckTimer(): Schedule {
  return repeat("background re-check", recheckLinks, config().RECHECK_INTERVAL_SECONDS * 1000);
}
