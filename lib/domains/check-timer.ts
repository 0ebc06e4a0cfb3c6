import { config } from "@/lib/config";
import { runDomainChecks } from "./job";

/** The self-hosted server's schedule for the background domain check (Vercel Cron calls GET /api/cron/domains instead). */
export function startDomainCheckTimer(): { stop(): void } {
  const intervalSeconds = config().DOMAIN_CHECK_INTERVAL_SECONDS;
  if (intervalSeconds === 0) return { stop: () => undefined };
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    runDomainChecks()
      .catch((error) => console.error("Background domain check failed:", error instanceof Error ? error.message : error))
      .finally(() => {
        running = false;
      });
  }, intervalSeconds * 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
