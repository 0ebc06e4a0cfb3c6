import { config } from "@/lib/config";
import { repeat, type Schedule } from "@/lib/schedule";
import { runDomainChecks } from "./job";

/** The self-hosted server's schedule for the background domain check (Vercel Cron calls GET /api/cron/domains instead). */
export function startDomainCheckTimer(): Schedule {
  return repeat("background domain check", runDomainChecks, config().DOMAIN_CHECK_INTERVAL_SECONDS * 1000);
}
