export type ScanEvent = {
  linkId: string;
  host: string;
  occurredAt: number;
  userAgent: string | null;
  referrer: string | null;
  country: string | null;
  viaQr: boolean;
};

export type ScanWriter = (events: ScanEvent[]) => Promise<void>;

const BATCH_SIZE = 5000;
/** Large enough that a busy instance writes a few batches a second, not hundreds. */
const FLUSH_AT = 5000;
/** Bounded memory while the database is unreachable: the oldest events are dropped first. */
const MAX_BUFFERED = 200_000;

/**
 * Collects scan events in memory and writes them in batches, off the redirect path. A failed
 * write keeps the events, and only the timer retries until a write succeeds again: a database
 * outage costs one attempt and one log line a tick, not one per visit.
 */
export class ScanBuffer {
  private events: ScanEvent[] = [];
  private flushing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private failing = false;

  constructor(private readonly write: ScanWriter, private readonly log: (message: string, error?: unknown) => void) {}

  record(event: ScanEvent): void {
    this.events.push(event);
    if (this.events.length > MAX_BUFFERED) {
      const dropped = this.events.splice(0, MAX_BUFFERED / 10).length;
      this.log(`The scan buffer is full (the database is not taking writes); dropped the ${dropped} oldest events.`);
    }
    if (this.events.length >= FLUSH_AT && !this.failing) void this.flush();
  }

  /** Writes everything buffered so far; concurrent calls share one run. */
  flush(): Promise<void> {
    this.flushing ??= this.writeAll().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  /** Flushes every `intervalMs` without keeping the process alive. */
  startTimer(intervalMs: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  private async writeAll(): Promise<void> {
    while (this.events.length > 0) {
      const batch = this.events.splice(0, BATCH_SIZE);
      try {
        await this.write(batch);
        this.failing = false;
      } catch (error) {
        this.events.unshift(...batch);
        if (!this.failing) this.log(`Writing ${batch.length} scan events failed; they stay buffered and are retried each second.`, error);
        this.failing = true;
        return;
      }
    }
  }
}
