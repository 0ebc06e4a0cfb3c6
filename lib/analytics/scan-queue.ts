import { randomUUID } from "node:crypto";

/**
 * Events cut from the buffer under one id: the writer claims the id, so a retried batch is written
 * once. `counts[i]` is how many identical scans `events[i]` stands for (see SameScan).
 */
export type ScanBatch<Event> = { id: string; events: Event[]; counts: number[] };

/** True when `next` is the same scan as `last` again (the same visitor, link and millisecond): one event then counts both. */
export type SameScan<Event> = (last: Event, next: Event) => boolean;

/**
 * What a scan buffer holds, in order: the events waiting to be cut into batches, and the batches
 * whose write or parking failed, oldest first, to be tried again before anything newer. Counts
 * are kept in events (what the memory bound counts) and in scans (an event stands for as many
 * identical scans as were folded into it). Pure bookkeeping: no timers, no I/O.
 */
export class ScanQueue<Event> {
  private waiting: Event[] = [];
  /** Scans each waiting event stands for. */
  private counts: number[] = [];
  private waitingScans = 0;
  private failed: ScanBatch<Event>[] = [];
  private failedEvents = 0;
  private failedScans = 0;

  constructor(private readonly same?: SameScan<Event>) {}

  /** Adds a scan; a repeat of the newest waiting event (`same`) only adds to that event's count. */
  push(event: Event): void {
    this.waitingScans++;
    const last = this.waiting.length - 1;
    if (last >= 0 && this.same?.(this.waiting[last]!, event)) {
      this.counts[last]!++;
      return;
    }
    this.waiting.push(event);
    this.counts.push(1);
  }

  /** Events waiting to be cut. */
  get waitingEvents(): number {
    return this.waiting.length;
  }

  get hasFailed(): boolean {
    return this.failed.length > 0;
  }

  /** Events held, waiting and failed: what a buffer's memory bound counts. */
  held(): number {
    return this.waiting.length + this.failedEvents;
  }

  /** Scans held, waiting and failed. */
  scans(): number {
    return this.waitingScans + this.failedScans;
  }

  /** The oldest waiting events under a new id, at most `limit` of them and `size`; null when none may be cut. */
  cut(limit: number, size: number): ScanBatch<Event> | null {
    const taken = Math.min(limit, size);
    if (taken <= 0 || this.waiting.length === 0) return null;
    const batch = { id: randomUUID(), events: this.waiting.splice(0, taken), counts: this.counts.splice(0, taken) };
    this.waitingScans -= scansIn(batch);
    return batch;
  }

  /**
   * Keeps a batch whose write or parking failed, for a later attempt under the same id: `oldest`
   * before every other failed batch (a batch being written was the oldest held), `newest` after
   * them (a parked batch is older only than what still waits).
   */
  keepFailed(batch: ScanBatch<Event>, place: "oldest" | "newest"): void {
    if (place === "oldest") this.failed.unshift(batch);
    else this.failed.push(batch);
    this.failedEvents += batch.events.length;
    this.failedScans += scansIn(batch);
  }

  /** The oldest failed batch, taken out. */
  takeFailed(): ScanBatch<Event> | undefined {
    const batch = this.failed.shift();
    if (batch) {
      this.failedEvents -= batch.events.length;
      this.failedScans -= scansIn(batch);
    }
    return batch;
  }

  /**
   * Drops about `events` events, oldest first (failed batches whole, before waiting events);
   * resolves to the scans dropped.
   */
  dropOldest(events: number): number {
    let dropped = 0;
    let left = events;
    while (left > 0 && this.failed.length > 0) {
      const batch = this.takeFailed()!;
      dropped += scansIn(batch);
      left -= batch.events.length;
    }
    if (left > 0) {
      this.waiting.splice(0, left);
      const scans = sum(this.counts.splice(0, left));
      this.waitingScans -= scans;
      dropped += scans;
    }
    return dropped;
  }
}

export function scansIn(batch: ScanBatch<unknown>): number {
  return sum(batch.counts);
}

export function sum(counts: number[]): number {
  let total = 0;
  for (const count of counts) total += count;
  return total;
}
