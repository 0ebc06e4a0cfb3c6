import type { OperationSpec } from "@/lib/http/operation";
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

/**
 * A job the service runs on a schedule, declared once beside its capability: on Vercel, Cron calls its
 * operation's route at `cron` (vercel.json lists the same schedule); self-hosted, the server repeats `run`
 * every `intervalMs()` (read when it starts: most come from a setting, where 0 turns the job off).
 * `tests/project/routes.test.ts` fails unless every cron operation is a job and vercel.json schedules each
 * as it says.
 */
export type Job = {
  /** What the log calls it: "`name` failed". */
  name: string;
  operation: OperationSpec;
  cron: string;
  intervalMs: () => number;
  firstAfterMs?: number;
  run: () => Promise<unknown>;
};

export function defineJob(job: Job): Job {
  return job;
}

/** The self-hosted server's schedule for `job`. */
export function startJob(job: Job): Schedule {
  return repeat(job.name, job.run, job.intervalMs(), job.firstAfterMs);
}
