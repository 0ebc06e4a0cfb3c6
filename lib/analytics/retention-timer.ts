import { log } from "@/lib/log";
import { applyScanRetention } from "./service";

/** Hourly: raw events leave within an hour of their retention ending. */
const INTERVAL_MS = 60 * 60 * 1000;

/** The self-hosted server's schedule for the scan retention (Vercel Cron calls GET /api/cron/scan-retention instead). */
export function startScanRetentionTimer(): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    applyScanRetention()
      .catch((error) => log().error({ err: error }, "pruning old scan events failed"))
      .finally(() => {
        running = false;
      });
  }, INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
