import { log } from "@/lib/log";
import { applyScanRetention } from "./service";

/** Hourly: raw events leave within an hour of their retention ending. */
const INTERVAL_MS = 60 * 60 * 1000;
/** The first pass, soon after start but off the start's own work: a server restarted more often than hourly still prunes. */
const FIRST_PASS_MS = 60 * 1000;

/** The self-hosted server's schedule for the scan retention (Vercel Cron calls GET /api/cron/scan-retention instead). */
export function startScanRetentionTimer(): { stop(): void } {
  let running = false;
  const prune = () => {
    if (running) return;
    running = true;
    applyScanRetention()
      .catch((error) => log().error({ err: error }, "pruning old scan events failed"))
      .finally(() => {
        running = false;
      });
  };
  let timer: NodeJS.Timeout = setTimeout(() => {
    prune();
    timer = setInterval(prune, INTERVAL_MS);
    timer.unref();
  }, FIRST_PASS_MS);
  timer.unref();
  return { stop: () => clearTimeout(timer) };
}
