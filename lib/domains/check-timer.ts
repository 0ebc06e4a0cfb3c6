import { config } from "@/lib/config";
import { runDomainChecks } from "./job";
import { log } from "@/lib/log";

/** The self-hosted server's schedule for the background domain check (Vercel Cron calls GET /api/cron/domains instead). */
export function startDomainCheckTimer(): { stop(): void } {
  const intervalSeconds = config().DOMAIN_CHECK_INTERVAL_SECONDS;
  if (intervalSeconds === 0) return { stop: () => undefined };
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    runDomainChecks()
      .catch((error) => log().error({ err: error }, "background domain check failed"))
      .finally(() => {
        running = false;
      });
  }, intervalSeconds * 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
