import { randomUUID } from "node:crypto";

/** Events cut from the buffer under one id: the writer claims the id, so a retried batch is written once. */
export type ScanBatch<Event> = { id: string; events: Event[] };

export type BatchWriter<Event> = (batch: ScanBatch<Event>) => Promise<void>;

export type ScanBufferLimits = {
  /** Events per write. */
  batchSize: number;
  /** Waiting events that start a write without waiting for the timer. */
  flushAt: number;
  /** Most events held (waiting and failed batches): past it the oldest are dropped, counted and logged. */
  maxBuffered: number;
};

export const DEFAULT_LIMITS: ScanBufferLimits = { batchSize: 5000, flushAt: 5000, maxBuffered: 100_000 };

export type ScanBufferStats = { buffered: number; written: number; dropped: number };

/**
 * Collects scan events in memory and writes them in batches, off the redirect path. A failed
 * write keeps its batch (and its id) for the next flush, and only the timer retries until a
 * write succeeds again: a database outage costs one attempt and one log line a tick, not one per
 * visit. Memory is bounded: past `maxBuffered` the oldest events are dropped, and every drop is
 * counted (stats().dropped) and logged with the running total.
 */
export class ScanBuffer<Event> {
  private waiting: Event[] = [];
  /** Batches whose write failed, oldest first; retried before anything newer. */
  private failed: ScanBatch<Event>[] = [];
  private failedEvents = 0;
  private flushing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private failing = false;
  private written = 0;
  private dropped = 0;

  constructor(
    private readonly write: BatchWriter<Event>,
    private readonly log: (message: string, error?: unknown) => void,
    private readonly limits: ScanBufferLimits = DEFAULT_LIMITS,
  ) {}

  record(event: Event): void {
    this.waiting.push(event);
    if (this.waiting.length + this.failedEvents > this.limits.maxBuffered) this.dropOldest();
    if (this.waiting.length >= this.limits.flushAt && !this.failing) void this.flush();
  }

  stats(): ScanBufferStats {
    return { buffered: this.waiting.length + this.failedEvents, written: this.written, dropped: this.dropped };
  }

  /** Writes everything buffered so far; concurrent calls share one run. */
  flush(): Promise<void> {
    this.flushing ??= this.writeAll().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  /** Flushes every `intervalMs` without keeping the process alive. */
  startTimer(intervalMs: number, onTick?: () => void): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      void this.flush();
      onTick?.();
    }, intervalMs);
    this.timer.unref();
  }

  private async writeAll(): Promise<void> {
    for (;;) {
      const retry = this.failed.shift();
      if (retry) this.failedEvents -= retry.events.length;
      const batch = retry ?? this.cut();
      if (!batch) return;
      try {
        await this.write(batch);
        this.written += batch.events.length;
        this.failing = false;
      } catch (error) {
        this.failed.unshift(batch);
        this.failedEvents += batch.events.length;
        if (!this.failing) this.log(`Writing ${batch.events.length} scan events failed; they stay buffered and are retried each second.`, error);
        this.failing = true;
        return;
      }
    }
  }

  private cut(): ScanBatch<Event> | null {
    if (this.waiting.length === 0) return null;
    return { id: randomUUID(), events: this.waiting.splice(0, this.limits.batchSize) };
  }

  /** Drops a tenth of the limit, oldest first (failed batches before waiting events). */
  private dropOldest(): void {
    let toDrop = Math.max(1, Math.floor(this.limits.maxBuffered / 10));
    let dropped = 0;
    while (toDrop > 0 && this.failed.length > 0) {
      const batch = this.failed.shift()!;
      this.failedEvents -= batch.events.length;
      dropped += batch.events.length;
      toDrop -= batch.events.length;
    }
    if (toDrop > 0) dropped += this.waiting.splice(0, toDrop).length;
    this.dropped += dropped;
    this.log(`The scan buffer is full (the database is not taking writes fast enough); dropped the ${dropped} oldest scan events, ${this.dropped} since this process started.`);
  }
}
