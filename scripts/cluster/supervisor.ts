import { log } from "@/lib/log";
import { setTimeout as sleep } from "node:timers/promises";

/** A process a supervisor can watch: its id, a promise of its end, and how to end it. */
export type Supervisable = { pid: number; exited: Promise<unknown>; stop(): Promise<unknown> };

export type Supervised<Child extends Supervisable> = {
  /** The process running now (after a restart, the new one). */
  current(): Child;
  /** How many times it was started, the first included. */
  starts(): number;
  /** Ends it and stops restarting it. */
  stop(): Promise<void>;
};

/**
 * How long a supervisor waits before starting a process again: `firstMs`, doubled after each start
 * that did not last `stableMs` (a crash loop backs off up to `maxMs`), back to `firstMs` once one did.
 */
export type Backoff = { firstMs: number; maxMs: number; stableMs: number };

export const DEFAULT_BACKOFF: Backoff = { firstMs: 1_000, maxMs: 30_000, stableMs: 60_000 };

/**
 * Starts a process and starts it again whenever it ends without being asked to, after a backoff,
 * as a process manager (systemd's Restart=always, a container's restart policy) would.
 */
export async function supervise<Child extends Supervisable>(
  name: string,
  start: () => Promise<Child>,
  backoff: Backoff = DEFAULT_BACKOFF,
): Promise<Supervised<Child>> {
  let current = await start();
  let starts = 1;
  const stopping = new AbortController();

  async function restartAfter(delayMs: number): Promise<number> {
    let delay = delayMs;
    for (;;) {
      log().warn({ process: name, restartInMs: delay }, `${name} ended; starting it again`);
      await sleep(delay, undefined, { signal: stopping.signal });
      delay = Math.min(delay * 2, backoff.maxMs);
      try {
        current = await start();
        starts++;
        return delay;
      } catch (error) {
        log().error({ err: error, process: name }, `${name} could not be started again`);
      }
    }
  }

  async function watch(): Promise<void> {
    let delay = backoff.firstMs;
    for (;;) {
      const startedAt = Date.now();
      await current.exited;
      if (stopping.signal.aborted) return;
      if (Date.now() - startedAt >= backoff.stableMs) delay = backoff.firstMs;
      delay = await restartAfter(delay);
      if (stopping.signal.aborted) await current.stop();
    }
  }

  const watching = watch().catch((error: unknown) => {
    if (!stopping.signal.aborted) throw error;
  });
  return {
    current: () => current,
    starts: () => starts,
    async stop() {
      stopping.abort();
      await current.stop();
      await watching;
    },
  };
}
