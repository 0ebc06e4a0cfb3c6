import { log } from "@/lib/log";

export type Schedule = { stop(): void };

/**
 * Runs `job` every `intervalMs` on the self-hosted server (on Vercel, Cron calls the job's route
 * instead): never two passes at once, a failed pass logged as `what` failed and the next one run
 * as planned. `firstAfterMs` brings the first pass forward. The timers never keep the process alive.
 * An interval of 0 schedules nothing (the `*_INTERVAL_SECONDS` settings' "off").
 */
export function repeat(what: string, job: () => Promise<unknown>, intervalMs: number, firstAfterMs = intervalMs): Schedule {
  if (intervalMs === 0) return { stop: () => undefined };
  let running = false;
  const pass = () => {
    if (running) return;
    running = true;
    job()
      .catch((error) => log().error({ err: error }, `${what} failed`))
      .finally(() => {
        running = false;
      });
  };
  let timer: NodeJS.Timeout = setTimeout(() => {
    pass();
    timer = setInterval(pass, intervalMs);
    timer.unref();
  }, firstAfterMs);
  timer.unref();
  return { stop: () => clearTimeout(timer) };
}
