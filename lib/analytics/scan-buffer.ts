import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * Events cut from the buffer under one id: the writer claims the id, so a retried batch is written
 * once. `counts[i]` is how many identical scans `events[i]` stands for (see ScanBuffer's `same`).
 */
export type ScanBatch<Event> = { id: string; events: Event[]; counts: number[] };

export type BatchWriter<Event> = (batch: ScanBatch<Event>) => Promise<void>;

export type ScanBufferLimits = {
  /** Events per write. */
  batchSize: number;
  /** Waiting events that start a write without waiting for the timer. */
  flushAt: number;
  /** Most events held (waiting and failed batches): past it the oldest are dropped, counted and logged. */
  maxBuffered: number;
  /** With an overflow, waiting events from which a run parks batches instead of writing them. */
  parkAt: number;
};

/**
 * Where a writer behind the door puts batches it has no time to write yet: somewhere durable and
 * fast to append to, from which they are written later, each exactly once.
 */
export type Overflow<Event> = {
  /** Absent where parking is not wanted (the scans go to a durable stream); parked batches are still written. */
  /**
   * Parks a batch, giving up by `deadline` (epoch ms) when one is given, inside the database too:
   * a parking that has not answered by then must never land later.
   */
  park?: (batch: ScanBatch<Event>, deadline?: number) => Promise<void>;
  /** Writes the oldest parked batch (any process's), if any, and says how many of its scans were counted anew. */
  writeParked(): Promise<ParkedWrite>;
  /** Tells the operator that parking began, or that every parked scan is written. */
  notice(message: string, state: ParkingState): void;
};

/** What a parking notice says: that parking began, or that every parked scan is written. */
export type ParkingState = "parking" | "caught up";

/** True when `next` is the same scan as `last` again (the same visitor, link and millisecond): one event then counts both. */
export type SameScan<Event> = (last: Event, next: Event) => boolean;

export const DEFAULT_LIMITS: ScanBufferLimits = { batchSize: 5000, flushAt: 5000, maxBuffered: 100_000, parkAt: 10_000 };

/** What a draining process keeps of its time to park what it could not write. */
const DRAIN_PARKING_RESERVE_MS = 3000;

/** How long a process waits before writing parked batches again after a write of one failed. */
const PARKED_RETRY_MS = 5000;

/** How often a process looks for batches parked by others (or by a process before it) while it has parked none. */
const PARKED_CHECK_INTERVAL_MS = 30_000;

/** In scans, not events: an event stands for as many identical scans as were folded into it. */
/** What writing the oldest parked batch did: none was parked, or one was taken and `written` of its scans counted anew. */
export type ParkedWrite = { taken: false } | { taken: true; written: number };

export type ScanBufferStats = { buffered: number; written: number; parked: number; dropped: number };

/** Scans dropped so far, counted across the buffers that share it. */
export type DropTally = { total: number };

/**
 * Collects scan events in memory and writes them in batches, off the redirect path. A failed
 * write keeps its batch (and its id) for the next flush, and only the timer retries until a
 * write succeeds again: a database outage costs one attempt and one log line a tick, not one per
 * visit. Memory is bounded: past `maxBuffered` the oldest events are dropped, and every drop is
 * counted (stats().dropped) and logged with the running total.
 *
 * With `same`, a scan identical to the newest waiting one only adds to that event's count (a busy
 * link's visitor sending several requests in one millisecond): the writer parses, hashes and sends
 * one event for all of them, and every scan is still counted.
 *
 * With an `overflow`, a writer that falls behind (visits spread over many links arrive faster than
 * their rollups can be written) parks batches instead of dropping them: once `parkAt` events wait,
 * the oldest are parked a batch at a time, beside the run being written (a slow batch holds no
 * parking back), and once nothing is waiting, runs write the parked batches, oldest first. So the
 * door's pace costs a delay in the rollups, never a scan; only a database that takes neither writes
 * nor parked batches fills the buffer.
 */
export class ScanBuffer<Event> {
  private waiting: Event[] = [];
  /** Scans each waiting event stands for. */
  private waitingCounts: number[] = [];
  private waitingScans = 0;
  /** Batches whose write failed, oldest first; retried before anything newer. */
  private failed: ScanBatch<Event>[] = [];
  private failedEvents = 0;
  private failedScans = 0;
  /** Whether runs are being written; one at a time, so failed batches are retried before anything newer. */
  private writing = false;
  /** The next run, which every flush asked for since the current run began waits on; it starts when the current one ends. */
  private nextRun: Waiter | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** The flush every flushWithin() of the current window shares; it starts when the window closes. */
  private windowFlush: Promise<void> | null = null;
  private failing = false;
  /** Scans in the batch being written: neither buffered nor written until its commit answers. */
  private writingScans = 0;
  private written = 0;
  private parked = 0;
  private dropped = 0;
  /** Every waiting event is parked (the process is ending: parking is the fastest durable write). */
  private parkingAll = false;
  /** The process is ending: parked batches are left for another process to write. */
  private draining = false;
  /** When a draining process ends: parking must have answered, or given up, by then. */
  private drainDeadline: number | undefined;
  /** The parking of the backlog under way, if any: one at a time, beside the runs. */
  private parkingBacklog: Promise<void> | null = null;
  /** Scans in the batch being parked: neither buffered nor parked until its insert answers. */
  private parkingScans = 0;
  /** Since this process parked a batch; reset when one writes nothing parked. */
  private parkedSince: number | null = null;
  /** When to look for parked batches again after finding none, or after writing one failed. */
  private nextParkedCheck = 0;
  /** Writing a parked batch failed, and none has been written since: logged once a spell. */
  private parkedWritesFailing = false;

  constructor(
    private readonly write: BatchWriter<Event>,
    private readonly log: (message: string, error?: unknown) => void,
    private readonly limits: ScanBufferLimits = DEFAULT_LIMITS,
    private readonly same?: SameScan<Event>,
    private overflow?: Overflow<Event>,
    /** The process's drops, shared by the buffers of a ShardedScanBuffer so the log's running total is the process's. */
    private readonly processDrops: DropTally = { total: 0 },
  ) {}

  /** Gives a long-lived process's buffer its overflow (a serverless instance may freeze between requests: it has none). */
  useOverflow(overflow: Overflow<Event>): void {
    this.overflow = overflow;
  }

  record(event: Event): void {
    this.waitingScans++;
    const last = this.waiting.length - 1;
    if (last >= 0 && this.same?.(this.waiting[last]!, event)) {
      this.waitingCounts[last]!++;
      return;
    }
    this.waiting.push(event);
    this.waitingCounts.push(1);
    if (this.waiting.length + this.failedEvents > this.limits.maxBuffered) this.dropOldest();
    if (this.overflow?.park && this.waiting.length >= this.limits.parkAt && !this.parkingBacklog && !this.failing)
      this.parkBacklog();
    if (this.waiting.length >= this.limits.flushAt && !this.failing) void this.flush();
  }

  stats(): ScanBufferStats {
    return { buffered: this.waitingScans + this.failedScans, written: this.written, parked: this.parked, dropped: this.dropped };
  }

  /** Events held (waiting and failed batches), as `maxBuffered` counts them. */
  held(): number {
    return this.waiting.length + this.failedEvents;
  }

  /**
   * Writes what is buffered when it is called, and resolves once that is written (or has failed
   * and stays buffered). A run writes what was waiting when it began: asked while one is writing,
   * it waits for the next run, which every flush asked meanwhile shares.
   */
  flush(): Promise<void> {
    this.nextRun ??= waiter();
    const asked = this.nextRun.done;
    if (!this.writing) void this.writeRuns();
    return asked;
  }

  /**
   * A flush that starts at most `ms` from now and is shared by every call until then: under load,
   * visits that each need their scan written before the instance may freeze (Vercel's waitUntil)
   * cause one write per window instead of one per visit. Resolves once what was recorded before the
   * window closed is written (or has failed and stays buffered), like flush().
   */
  flushWithin(ms: number): Promise<void> {
    this.windowFlush ??= sleep(ms).then(() => {
      this.windowFlush = null;
      return this.flush();
    });
    return this.windowFlush;
  }

  /** Runs while flushes are waiting for one. The hand-over between runs is synchronous, so two never overlap. */
  private async writeRuns(): Promise<void> {
    this.writing = true;
    try {
      while (this.nextRun) {
        const run = this.nextRun;
        this.nextRun = null;
        await this.writeBuffered().then(run.resolve, run.reject);
        if (!this.nextRun) await this.writeParked();
      }
    } finally {
      this.writing = false;
    }
  }

  /**
   * Writes until nothing is buffered or `deadline` (epoch ms) passes, for a process that must end by
   * then; resolves to the scans it could not write: those still buffered, and those of a batch whose
   * commit had not answered by the deadline (the process ends its connection, so PostgreSQL rolls it
   * back). While the database refuses writes it retries every `retryMs`. With an overflow, writing
   * stops `parkingReserveMs` before the deadline and what is left is parked, the fastest durable
   * write, for the next process (or another instance) to write; a batch still being written then
   * has until the deadline.
   */
  async drain(deadline: number, retryMs = 250, parkingReserveMs = DRAIN_PARKING_RESERVE_MS): Promise<number> {
    const buffered = () => this.waitingScans + this.failedScans;
    this.draining = true;
    this.drainDeadline = deadline;
    const writeUntil = this.overflow?.park ? deadline - parkingReserveMs : deadline;
    // A batch being written counts too: with nothing else buffered, its commit is still to be waited for.
    while (buffered() > 0 || this.writingScans > 0) {
      if ((await beforeDeadline(this.flush(), writeUntil)) === TIME_UP) break;
      if (this.failing && (await beforeDeadline(sleep(retryMs), writeUntil)) === TIME_UP) break;
    }
    // A batch being parked still needs its insert to answer before the process ends its connections.
    if (this.overflow?.park && (buffered() > 0 || this.parkingBacklog)) {
      this.parkingAll = true;
      await beforeDeadline(this.parkingBacklog ?? this.parkBacklog(), deadline);
    }
    // The time kept for parking that parking did not use is the batch's still being written: its commit may yet answer.
    if (this.writingScans > 0) await beforeDeadline(this.flush(), deadline);
    return buffered() + this.writingScans + this.parkingScans;
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

  /**
   * Parked batches, oldest first, while nothing new waits to be written and no flush is waiting for a
   * run; stops at the first failure (the timer's next run tries again).
   */
  private async writeParked(): Promise<void> {
    if (!this.overflow || this.draining || this.failing) return;
    if (Date.now() < this.nextParkedCheck) return;
    while (!this.nextRun && this.waiting.length < this.limits.flushAt) {
      let parked: ParkedWrite;
      try {
        parked = await this.overflow.writeParked();
      } catch (error) {
        if (!this.parkedWritesFailing)
          this.log(`Writing parked scans failed; they stay parked and are retried every ${PARKED_RETRY_MS / 1000} s.`, error);
        this.parkedWritesFailing = true;
        this.nextParkedCheck = Date.now() + PARKED_RETRY_MS;
        return;
      }
      this.parkedWritesFailing = false;
      if (!parked.taken) {
        if (this.parkedSince !== null)
          this.overflow.notice(
            `The scan writer has caught up: every scan parked since ${new Date(this.parkedSince).toISOString()} is written.`,
            "caught up",
          );
        this.parkedSince = null;
        this.nextParkedCheck = Date.now() + PARKED_CHECK_INTERVAL_MS;
        return;
      }
      this.written += parked.written;
    }
  }

  /** Failed batches first, then the events waiting when the run began, in batches; stops at a failure. */
  private async writeBuffered(): Promise<void> {
    let waitingAtStart = this.waiting.length;
    for (;;) {
      const retry = this.takeFailed();
      const batch = retry ?? this.cut(waitingAtStart);
      if (!batch) return;
      if (!retry) waitingAtStart -= batch.events.length;
      this.writingScans = scansIn(batch);
      try {
        await this.write(batch);
        this.written += scansIn(batch);
        this.failing = false;
      } catch (error) {
        this.keepFailed(batch, "Writing", error);
        return;
      } finally {
        this.writingScans = 0;
      }
    }
  }

  /**
   * Parks the oldest waiting events a batch at a time while `parkAt` or more wait (every one once the
   * process is ending). A batch whose parking failed joins the failed batches, written by the runs.
   */
  private parkBacklog(): Promise<void> {
    const parkUntil = () => (this.parkingAll ? 1 : this.limits.parkAt);
    const parking = (async () => {
      while (this.waiting.length >= parkUntil() || (this.parkingAll && this.failed.length > 0)) {
        const batch = (this.parkingAll && this.takeFailed()) || this.cut(this.waiting.length)!;
        this.parkingScans = scansIn(batch);
        try {
          await this.overflow!.park!(batch, this.drainDeadline);
          this.parked += scansIn(batch);
          // There is something to write now, unless writing parked batches is waiting out a failure.
          if (!this.parkedWritesFailing) this.nextParkedCheck = 0;
          this.announceParking();
        } catch (error) {
          this.keepFailed(batch, "Parking", error);
          return;
        } finally {
          this.parkingScans = 0;
        }
      }
    })().finally(() => (this.parkingBacklog = null));
    this.parkingBacklog = parking;
    return parking;
  }

  private announceParking(): void {
    if (this.parkedSince !== null) return;
    this.parkedSince = Date.now();
    this.overflow!.notice(
      `The scan writer is behind the visits (${this.waiting.length} scans waiting); parking batches in the ` +
        "database to write them as it catches up. No scan is dropped.",
      "parking",
    );
  }

  /**
   * Keeps a batch whose write or parking failed for the runs to retry, before anything newer: a
   * written batch was the oldest held, a parked one is older only than what still waits. Logs the
   * first failure of a spell.
   */
  private keepFailed(batch: ScanBatch<Event>, attempt: "Writing" | "Parking", error: unknown): void {
    if (attempt === "Writing") this.failed.unshift(batch);
    else this.failed.push(batch);
    this.failedEvents += batch.events.length;
    this.failedScans += scansIn(batch);
    if (!this.failing)
      this.log(`${attempt} ${scansIn(batch)} scans failed; they stay buffered and are retried each second.`, error);
    this.failing = true;
  }

  /** The oldest failed batch, taken out of the failed ones. */
  private takeFailed(): ScanBatch<Event> | undefined {
    const batch = this.failed.shift();
    if (batch) {
      this.failedEvents -= batch.events.length;
      this.failedScans -= scansIn(batch);
    }
    return batch;
  }

  /** The oldest waiting events, at most `limit` of them and a batch's size. */
  private cut(limit: number): ScanBatch<Event> | null {
    const size = Math.min(limit, this.limits.batchSize);
    if (size <= 0 || this.waiting.length === 0) return null;
    const batch = { id: randomUUID(), events: this.waiting.splice(0, size), counts: this.waitingCounts.splice(0, size) };
    this.waitingScans -= scansIn(batch);
    return batch;
  }

  /** Drops `toDrop` events (a tenth of the limit), oldest first (failed batches before waiting events). */
  dropOldest(toDrop = Math.max(1, Math.floor(this.limits.maxBuffered / 10))): void {
    let dropped = 0;
    while (toDrop > 0 && this.failed.length > 0) {
      const batch = this.failed.shift()!;
      this.failedEvents -= batch.events.length;
      this.failedScans -= scansIn(batch);
      dropped += scansIn(batch);
      toDrop -= batch.events.length;
    }
    if (toDrop > 0) {
      this.waiting.splice(0, toDrop);
      const scans = sum(this.waitingCounts.splice(0, toDrop));
      this.waitingScans -= scans;
      dropped += scans;
    }
    this.dropped += dropped;
    this.processDrops.total += dropped;
    this.log(
      `The scan buffer is full (the database is not taking writes fast enough); dropped the ${dropped} ` +
        `oldest scans, ${this.processDrops.total} since this process started.`,
    );
  }
}

/**
 * Scans split over several buffers by a key (the link), each writing its own batches one at a time
 * on its own database connection: two batches then run at once on two cores, and never share a
 * link's rows, so neither waits for the other's commit to update them (two batches cut from one
 * buffer over 20,000 links shared a quarter of their links, and the second waited on the first's
 * row locks: 1.25 times one writer's pace instead of nearly twice). The same scan always goes to
 * the same buffer, so identical scans still fold. The buffers share the limit: past it, the oldest
 * events of the one holding most are dropped, so the scans of one busy link (all in one buffer)
 * are held up to the whole limit, as with one buffer.
 */
export class ShardedScanBuffer<Event> {
  private readonly shards: ScanBuffer<Event>[];
  private readonly maxBuffered: number;

  constructor(
    count: number,
    private readonly shardKey: (event: Event) => string,
    shard: (limits: ScanBufferLimits, drops: DropTally) => ScanBuffer<Event>,
    limits: ScanBufferLimits = DEFAULT_LIMITS,
  ) {
    this.maxBuffered = limits.maxBuffered;
    // Each buffer leaves the limit to this one.
    const unbounded = { ...limits, maxBuffered: Infinity };
    const drops: DropTally = { total: 0 };
    this.shards = Array.from({ length: count }, () => shard(unbounded, drops));
  }

  record(event: Event): void {
    this.shards[stringHash(this.shardKey(event)) % this.shards.length]!.record(event);
    let held = 0;
    let fullest = this.shards[0]!;
    for (const shard of this.shards) {
      held += shard.held();
      if (shard.held() > fullest.held()) fullest = shard;
    }
    if (held > this.maxBuffered) fullest.dropOldest(Math.max(1, Math.floor(this.maxBuffered / 10)));
  }

  stats(): ScanBufferStats {
    const total: ScanBufferStats = { buffered: 0, written: 0, parked: 0, dropped: 0 };
    for (const stats of this.shards.map((shard) => shard.stats()))
      for (const key of Object.keys(total) as (keyof ScanBufferStats)[]) total[key] += stats[key];
    return total;
  }

  async flush(): Promise<void> {
    await Promise.all(this.shards.map((shard) => shard.flush()));
  }

  async flushWithin(ms: number): Promise<void> {
    await Promise.all(this.shards.map((shard) => shard.flushWithin(ms)));
  }

  /** Drains every buffer by `deadline` at once; resolves to the scans none could write. */
  async drain(deadline: number): Promise<number> {
    return sum(await Promise.all(this.shards.map((shard) => shard.drain(deadline))));
  }

  startTimer(intervalMs: number): void {
    for (const shard of this.shards) shard.startTimer(intervalMs);
  }

  /**
   * Gives every buffer the overflow. The operator hears once that parking began (the first buffer
   * to park says so) and once that every parked scan is written (the last buffer to catch up).
   */
  useOverflow(overflow: Overflow<Event>): void {
    const parking = new Set<ScanBuffer<Event>>();
    for (const shard of this.shards)
      shard.useOverflow({
        ...overflow,
        notice: (message, state) => {
          const first = parking.size === 0;
          if (state === "parking") parking.add(shard);
          else parking.delete(shard);
          if (state === "parking" ? first : parking.size === 0) overflow.notice(message, state);
        },
      });
  }
}

/** FNV-1a over the string's UTF-16 code units: spreads link ids evenly, the same in every process. */
function stringHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}

const TIME_UP = "time up" as const;

/** Resolves when `work` does, or to TIME_UP once `deadline` (epoch ms) has passed first. */
async function beforeDeadline(work: Promise<void>, deadline: number): Promise<void | typeof TIME_UP> {
  const timer = new AbortController();
  const timeUp = sleep(Math.max(0, deadline - Date.now()), TIME_UP, { signal: timer.signal }).catch(() => undefined);
  try {
    return await Promise.race([work, timeUp]);
  } finally {
    timer.abort();
  }
}

type Waiter = { done: Promise<void>; resolve: () => void; reject: (error: unknown) => void };

function waiter(): Waiter {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const done = new Promise<void>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  return { done, resolve, reject };
}

function scansIn(batch: ScanBatch<unknown>): number {
  return sum(batch.counts);
}

function sum(counts: number[]): number {
  let total = 0;
  for (const count of counts) total += count;
  return total;
}

/** The running total in dropOldest's log line (scan-buffer.test.ts reads one back). */
const DROPPED_SINCE_START = /oldest scans, (\d+) since this process started/g;

/** The scans a process's buffer has dropped since it started, read back from its log (0 when it dropped none). */
export function droppedSinceStartIn(log: string): number {
  const totals = [...log.matchAll(DROPPED_SINCE_START)];
  return totals.length ? Number(totals.at(-1)![1]) : 0;
}
