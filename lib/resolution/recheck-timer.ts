import { config } from "@/lib/config";
import { recheckLinks } from "./recheck";
import { log } from "@/lib/log";

/** The self-hosted server's schedule for the background re-check (Vercel Cron calls the route instead). */
export function startRecheckTimer(): { stop(): void } {
  const intervalSeconds = config().RECHECK_INTERVAL_SECONDS;
  if (intervalSeconds === 0) return { stop: () => undefined };
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    recheckLinks()
      .catch((error) => log().error({ err: error }, "background re-check failed"))
      .finally(() => {
        running = false;
      });
  }, intervalSeconds * 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
