import { config } from "@/lib/config";
import { repeat, type Schedule } from "@/lib/schedule";
import { recheckLinks } from "./recheck";

/** The self-hosted server's schedule for the background re-check (Vercel Cron calls the route instead). */
export function startRecheckTimer(): Schedule {
  const intervalSeconds = config().RECHECK_INTERVAL_SECONDS;
  if (intervalSeconds === 0) return { stop: () => undefined };
  return repeat("background re-check", recheckLinks, intervalSeconds * 1000);
}
