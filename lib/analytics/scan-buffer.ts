import { setTimeout as sleep } from "node:timers/promises";
import { type Overflow, ParkedBatchPoller } from "./parked-batches";
import { type SameScan, type ScanBatch, ScanQueue, scansIn, sum } from "./scan-queue";

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

export const DEFAULT_LIMITS: ScanBufferLimits = { batchSize: 5000, flushAt: 5000, maxBuffered: 100_000, parkAt: 10_000 };

/** What a draining process keeps of its time to park what it could not write. */
const DRAIN_PARKING_RESERVE_MS = 3000;

/**
 * A buffer's life: `running` until the process begins to end; `draining` while it writes what it
 * holds by a deadline (parked batches are left for another process); `parking` once its time to
 * write is up and every event left is parked, the fastest durable write. It only moves forward.
 */
export type RunState = "running" | "draining" | "parking";

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
 * parking back), and once nothing is waiting, runs write the parked batches, oldest first
 * (ParkedBatchPoller). So the door's pace costs a delay in the rollups, never a scan; only a
 * database that takes neither writes nor parked batches fills the buffer.
 *
 * What it holds is a ScanQueue; where it is in its life, one RunState.
 */
export class ScanBuffer<Event> {
  private readonly queue: ScanQueue<Event>;
  private state: RunState = "running";
  /** When a draining process ends: parking must have answered, or given up, by then. */
  private drainDeadline: number | undefined;
  private poller: ParkedBatchPoller<Event> | undefined;
  /** Whether runs are being written; one at a time, so failed batches are retried before anything newer. */
  private writing = false;
  /** The last write or parking failed: only the timer (or a drain) tries again. */
  private failing = false;
  /** The next run, which every flush asked for since the current run began waits on; it starts when the current one ends. */
  private nextRun: Waiter | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** The flush every flushWithin() of the current window shares; it starts when the window closes. */
  private windowFlush: Promise<void> | null = null;
  /** The parking of the backlog under way, if any: one at a time, beside the runs. */
  private parkingBacklog: Promise<void> | null = null;
  /** Scans in the batch being written, and in the one being parked: neither buffered nor done until their commit answers. */
  private writingScans = 0;
  private parkingScans = 0;
  private readonly totals = { written: 0, parked: 0, dropped: 0 };

  constructor(
    private readonly write: BatchWriter<Event>,
    private readonly log: (message: string, error?: unknown) => void,
    private readonly limits: ScanBufferLimits = DEFAULT_LIMITS,
    same?: SameScan<Event>,
    private overflow?: Overflow<Event>,
    /** The process's drops, shared by the buffers of a ShardedScanBuffer so the log's running total is the process's. */
    private readonly processDrops: DropTally = { total: 0 },
  ) {
    this.queue = new ScanQueue(same);
    if (overflow) this.poller = new ParkedBatchPoller(overflow, log);
  }

  /** Gives a long-lived process's buffer its overflow (a serverless instance may freeze between requests: it has none). */
  useOverflow(overflow: Overflow<Event>): void {
    this.overflow = overflow;
    this.poller = new ParkedBatchPoller(overflow, this.log);
  }

  record(event: Event): void {
    const before = this.queue.waitingEvents;
    this.queue.push(event);
    if (this.queue.waitingEvents === before) return;
    if (this.queue.held() > this.limits.maxBuffered) this.dropOldest();
    if (this.overflow?.park && this.queue.waitingEvents >= this.limits.parkAt && !this.parkingBacklog && !this.failing)
      this.parkBacklog();
    if (this.queue.waitingEvents >= this.limits.flushAt && !this.failing) void this.flush();
  }

  stats(): ScanBufferStats {
    return { buffered: this.queue.scans(), ...this.totals };
  }

  /** Events held (waiting and failed batches), as `maxBuffered` counts them. */
  held(): number {
    return this.queue.held();
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
    const buffered = () => this.queue.scans();
    this.state = "draining";
    this.drainDeadline = deadline;
    const writeUntil = this.overflow?.park ? deadline - parkingReserveMs : deadline;
    // A batch being written counts too: with nothing else buffered, its commit is still to be waited for.
    while (buffered() > 0 || this.writingScans > 0) {
      if ((await beforeDeadline(this.flush(), writeUntil)) === TIME_UP) break;
      if (this.failing && (await beforeDeadline(sleep(retryMs), writeUntil)) === TIME_UP) break;
    }
    // A batch being parked still needs its insert to answer before the process ends its connections.
    if (this.overflow?.park && (buffered() > 0 || this.parkingBacklog)) {
      this.state = "parking";
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
   * Parked batches, oldest first, while nothing new waits to be written and no flush is waiting for
   * a run, in a running process whose writes succeed; the poller says when they are due.
   */
  private async writeParked(): Promise<void> {
    if (!this.poller || this.state !== "running" || this.failing) return;
    await this.poller.writeWhile(
      () => !this.nextRun && this.queue.waitingEvents < this.limits.flushAt,
      (scans) => (this.totals.written += scans),
    );
  }

  /** Failed batches first, then the events waiting when the run began, in batches; stops at a failure. */
  private async writeBuffered(): Promise<void> {
    let waitingAtStart = this.queue.waitingEvents;
    for (;;) {
      const retry = this.queue.takeFailed();
      const batch = retry ?? this.queue.cut(waitingAtStart, this.limits.batchSize);
      if (!batch) return;
      if (!retry) waitingAtStart -= batch.events.length;
      this.writingScans = scansIn(batch);
      try {
        await this.write(batch);
        this.totals.written += scansIn(batch);
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
   * Parks the oldest waiting events a batch at a time while `parkAt` or more wait (every one in the
   * `parking` state). A batch whose parking failed joins the failed batches, written by the runs.
   */
  private parkBacklog(): Promise<void> {
    const parkUntil = () => (this.state === "parking" ? 1 : this.limits.parkAt);
    const parking = (async () => {
      while (this.queue.waitingEvents >= parkUntil() || (this.state === "parking" && this.queue.hasFailed)) {
        const batch =
          (this.state === "parking" && this.queue.takeFailed()) ||
          this.queue.cut(this.queue.waitingEvents, this.limits.batchSize)!;
        this.parkingScans = scansIn(batch);
        try {
          await this.overflow!.park!(batch, this.drainDeadline);
          this.totals.parked += scansIn(batch);
          this.poller!.parked(this.queue.waitingEvents);
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

  /**
   * Keeps a batch whose write or parking failed for the runs to retry, before anything newer: a
   * written batch was the oldest held, a parked one is older only than what still waits. Logs the
   * first failure of a spell.
   */
  private keepFailed(batch: ScanBatch<Event>, attempt: "Writing" | "Parking", error: unknown): void {
    this.queue.keepFailed(batch, attempt === "Writing" ? "oldest" : "newest");
    if (!this.failing)
      this.log(`${attempt} ${scansIn(batch)} scans failed; they stay buffered and are retried each second.`, error);
    this.failing = true;
  }

  /** Drops `toDrop` events (a tenth of the limit), oldest first (failed batches before waiting events). */
  dropOldest(toDrop = Math.max(1, Math.floor(this.limits.maxBuffered / 10))): void {
    const dropped = this.queue.dropOldest(toDrop);
    this.totals.dropped += dropped;
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

/** The running total in dropOldest's log line (scan-buffer.test.ts reads one back). */
const DROPPED_SINCE_START = /oldest scans, (\d+) since this process started/g;

/** The scans a process's buffer has dropped since it started, read back from its log (0 when it dropped none). */
export function droppedSinceStartIn(log: string): number {
  const totals = [...log.matchAll(DROPPED_SINCE_START)];
  return totals.length ? Number(totals.at(-1)![1]) : 0;
}
