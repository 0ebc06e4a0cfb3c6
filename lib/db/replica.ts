import { config } from "@/lib/config";
import { withDeadline } from "@/lib/deadline";
import { log } from "@/lib/log";
import { processSingleton } from "@/lib/process-singleton";
import type pg from "pg";
import { createPool, pool } from "./pool";

/**
 * Reads from a PostgreSQL streaming replica (READ_DATABASE_URL). A monitor asks the primary for its
 * WAL insert position (past every commit that has returned, even one not yet flushed) and the
 * replica for what it has replayed, every second; the replica's lag is how long ago the primary
 * first passed the position the replica has reached. Reads go to the replica only
 * while it answers and is at most READ_REPLICA_MAX_LAG_MS behind; otherwise to the primary.
 */

const MONITOR_INTERVAL_MS = 1_000;
/** Positions of the primary kept to date the replica's: longer than any lag worth telling apart. */
const HISTORY_MS = 10 * 60_000;
const NOT_CHECKED = "not checked yet";

/**
 * `primary away`: the primary does not answer, and the replica has replayed all it received: the
 * newest copy there is, so reads go to it (cold visits resolve) until the primary is back.
 */
export type ReplicaState =
  | { status: "ok"; lagMs: number }
  | { status: "behind"; lagMs: number }
  | { status: "primary away" }
  | { status: "unavailable"; reason: string };

type Monitor = {
  replica: pg.Pool;
  state: ReplicaState;
  /** The primary's WAL positions, oldest first, with when they were read. */
  history: { at: number; lsn: bigint }[];
  timer: NodeJS.Timeout;
  /** The check under way: ticks and callers share it, so checks never overlap or pile up queries. */
  checking: Promise<void> | null;
};

const processMonitor = processSingleton<Monitor | null>("db.replica", () => {
  const url = config().READ_DATABASE_URL;
  if (!url) return null;
  const monitor: Monitor = {
    replica: createPool(url, config().DATABASE_POOL_SIZE),
    state: { status: "unavailable", reason: NOT_CHECKED },
    history: [],
    checking: null,
    timer: setInterval(() => void check(monitor), MONITOR_INTERVAL_MS),
  };
  monitor.timer.unref();
  void check(monitor);
  return monitor;
});

/** `X/Y` (two hex halves) as one number, so positions compare. */
export function lsnValue(lsn: string): bigint {
  const [high, low] = lsn.split("/");
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** How long ago the primary first went past `replayed`, from its recorded positions; 0 when the replica has caught up. */
export function lagFrom(history: { at: number; lsn: bigint }[], replayed: bigint, now: number): number {
  const firstAhead = history.find((entry) => entry.lsn > replayed);
  return firstAhead ? now - firstAhead.at : 0;
}

/** Each side of a check answers within this, so a hung primary or replica is noticed within the monitor's tick. */
const CHECK_DEADLINE_MS = 900;

function check(monitor: Monitor): Promise<void> {
  monitor.checking ??= (async () => {
    const previous = monitor.state;
    monitor.state = await measure(monitor).catch((error: unknown): ReplicaState => ({
      status: "unavailable",
      reason: failureOf(error),
    }));
    reportChange(previous, monitor.state);
  })().finally(() => (monitor.checking = null));
  return monitor.checking;
}

/** What health may show of a failure: the driver's or the socket's code (never a host or user name), else our own sentence. */
function failureOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") return code;
  return error instanceof Error ? error.message : String(error);
}

/**
 * The replica's lag from the primary's recorded positions; when the primary does not answer, the
 * replica alone: usable while it has replayed everything it received, since nothing newer can be
 * committed meanwhile (asking the primary first and giving up had dropped the replica exactly when
 * it was the only copy able to answer).
 */
async function measure(monitor: Monitor): Promise<ReplicaState> {
  // A primary whose pool is busy (requests queued for a connection) is slow, not away: its check
  // waits in that queue, and a timeout there says nothing about the primary.
  const busy = pool().waitingCount > 0;
  const primary = await withDeadline(
    pool().query<{ lsn: string }>("SELECT pg_current_wal_insert_lsn()::text AS lsn"),
    CHECK_DEADLINE_MS,
  ).catch(() => null);
  if (!primary && busy) return monitor.state;
  const now = Date.now();
  if (primary) {
    monitor.history.push({ at: now, lsn: lsnValue(primary.rows[0]!.lsn) });
    while (monitor.history.length > 1 && monitor.history[0]!.at < now - HISTORY_MS) monitor.history.shift();
  }
  const { rows } = await withDeadline(
    monitor.replica.query<{ replayed: string | null; received: string | null }>(
      "SELECT pg_last_wal_replay_lsn()::text AS replayed, pg_last_wal_receive_lsn()::text AS received",
    ),
    CHECK_DEADLINE_MS,
  );
  const { replayed, received } = rows[0]!;
  if (replayed === null) throw new Error("READ_DATABASE_URL is not a replica (it replays no WAL)");
  if (!primary) return withoutPrimary(monitor, lsnValue(replayed), received === null ? null : lsnValue(received));
  const lagMs = lagFrom(monitor.history, lsnValue(replayed), now);
  return lagMs <= config().READ_REPLICA_MAX_LAG_MS ? { status: "ok", lagMs } : { status: "behind", lagMs };
}

/**
 * The primary does not answer: the replica is used only if it was in use (not behind) when the
 * primary went away, has replayed all it received, and has reached the last position read from
 * the primary. A replica that had fallen behind, or whose stream was cut earlier, stays unused.
 */
function withoutPrimary(monitor: Monitor, replayed: bigint, received: bigint | null): ReplicaState {
  const wasInUse = monitor.state.status === "ok" || monitor.state.status === "primary away";
  const lastPrimary = monitor.history.at(-1)?.lsn;
  const caughtUp = (received === null || received <= replayed) && lastPrimary !== undefined && replayed >= lastPrimary;
  if (wasInUse && caughtUp) return { status: "primary away" };
  return { status: "unavailable", reason: "the primary does not answer, and the replica had not caught up with it" };
}

/** One log line when the replica starts or stops being used (and at the first check). */
function reportChange(previous: ReplicaState, current: ReplicaState): void {
  const firstCheck = previous.status === "unavailable" && previous.reason === NOT_CHECKED;
  if (!firstCheck && previous.status === current.status) return;
  if (current.status === "ok") log().info({ lagMs: current.lagMs }, "the read replica is in use");
  else if (current.status === "primary away") log().warn("the primary does not answer; reads go to the read replica");
  else if (current.status === "behind")
    log().warn({ lagMs: current.lagMs }, "the read replica is too far behind; reads go to the primary");
  else log().warn({ reason: current.reason }, "the read replica does not answer; reads go to the primary");
}

/** Whether READ_DATABASE_URL is set. */
export function replicaConfigured(): boolean {
  return Boolean(config().READ_DATABASE_URL);
}

/** The replica's last checked state (null when none is configured). */
export function replicaState(): ReplicaState | null {
  return processMonitor.get()?.state ?? null;
}

/**
 * How long after a commit a read from the replica may still miss it: reads go there only while its
 * lag is within READ_REPLICA_MAX_LAG_MS, as last measured (up to one monitor interval ago, and the
 * measurement itself a step behind).
 */
export function replicaMayMissCommitsForMs(): number {
  return config().READ_REPLICA_MAX_LAG_MS + 2 * MONITOR_INTERVAL_MS;
}

/** The replica's pool while it is usable, else null (read the primary). */
export function usableReplicaPool(): pg.Pool | null {
  const monitor = processMonitor.get();
  return monitor?.state.status === "ok" || monitor?.state.status === "primary away" ? monitor.replica : null;
}

/** Checks the replica now instead of waiting for the next tick (tests, and health). */
export async function checkReplica(): Promise<ReplicaState | null> {
  const monitor = processMonitor.get();
  if (!monitor) return null;
  await check(monitor);
  return monitor.state;
}

export async function closeReplica(): Promise<void> {
  const monitor = processMonitor.reset();
  if (!monitor) return;
  clearInterval(monitor.timer);
  await monitor.replica.end();
}
