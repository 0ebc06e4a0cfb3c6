import type { ScanRow } from "@/lib/analytics/enrich";
import { batchStatementValues, inWriterTransaction, writeScanBatch } from "@/lib/analytics/store/append";
import { pool } from "@/lib/db/pool";
import { processSingleton } from "@/lib/process-singleton";
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import type pg from "pg";

/**
 * What a scan costs PostgreSQL, read from its backends' own CPU counters (/proc/<pid>/schedstat:
 * nanoseconds on a CPU), beside the statement of the release before (LEGACY_SCAN_BATCH): the two
 * designs on the same kind of batches, in turns, in one run, so load from elsewhere on the machine
 * weighs on both alike (CPU time, unlike wall time, is not what another process takes).
 */

/**
 * The batch statement of the release before this one, as it was (two visitor rows a scan: one for
 * the link, one for the workspace, in scan_visitors), frozen in its own file so the bench measures
 * both designs side by side; it takes the same parameters (batchStatementValues).
 */
const legacyScanBatch = processSingleton("bench.legacy-scan-batch", () =>
  readFile(new URL("./legacy-scan-batch.sql", import.meta.url), "utf8"),
);

/** Writes a batch with the release before's statement, on the writer's connections and settings. */
export async function writeLegacyScanBatch(
  batchId: string,
  rows: ScanRow[],
  counts: number[] = rows.map(() => 1),
): Promise<void> {
  await inWriterTransaction(async (client) => {
    await client.query({
      name: "bench.legacy-scan-batch",
      text: await legacyScanBatch.get(),
      values: await batchStatementValues(batchId, rows, counts),
    });
  });
}

/** Each client backend of this database (the writer's, the lookups', this process's) and its nanoseconds on a CPU so far. */
export async function backendCpu(from: pg.Pool = pool()): Promise<Map<number, number>> {
  const { rows } = await from.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'",
  );
  const counters = new Map<number, number>();
  for (const { pid } of rows) {
    const text = await readFile(`/proc/${pid}/schedstat`, "utf8").catch(() => null);
    if (text) counters.set(pid, Number(text.split(" ")[0]));
  }
  return counters;
}

/**
 * Nanoseconds the client backends spent on a CPU since `before` (backendCpu): each backend's own
 * difference, and the whole of one that started meanwhile. A backend that ended meanwhile (a pool
 * closing an idle connection) counts nothing: summing the counters instead and subtracting took
 * its whole life off the batch, which came out negative.
 */
export async function backendCpuSinceNs(before: Map<number, number>, from: pg.Pool = pool()): Promise<number> {
  let total = 0;
  for (const [pid, ns] of await backendCpu(from)) total += ns - (before.get(pid) ?? 0);
  return total;
}

/** Whether this process can read PostgreSQL's backends' counters (the same machine, and allowed to). */
export async function backendCpuReadable(): Promise<boolean> {
  const { rows } = await pool().query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
  return (await readFile(`/proc/${rows[0]!.pid}/schedstat`, "utf8").catch(() => null)) !== null;
}

export type Design = "legacy" | "current";

export type CostSample = { design: Design; scans: number; cpuUs: number; wallMs: number; walBytes: number };

/** The database server's write-ahead log position, in bytes from its start. */
async function walPosition(): Promise<bigint> {
  const { rows } = await pool().query<{ at: string }>("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS at");
  return BigInt(rows[0]!.at.split(".")[0]!);
}

/**
 * Writes one batch with `design`'s statement and measures it: PostgreSQL's CPU over the batch's
 * backends (µs) and the wall time. The backends are read before and after, so what runs between
 * (nothing else writes in the bench's database then) is the batch's.
 */
export async function measureBatch(design: Design, rows: ScanRow[]): Promise<CostSample> {
  const walBefore = await walPosition();
  const before = await backendCpu();
  const began = performance.now();
  if (design === "legacy") await writeLegacyScanBatch(randomUUID(), rows);
  else await writeScanBatch(randomUUID(), rows);
  const wallMs = performance.now() - began;
  const cpuUs = (await backendCpuSinceNs(before)) / 1000;
  // The server's whole log: on a database others write to at the same time, theirs is in it too.
  const walBytes = Number((await walPosition()) - walBefore);
  return { design, scans: rows.length, cpuUs, wallMs, walBytes };
}

/** µs of PostgreSQL CPU a scan over the samples of one design (and their median), WAL bytes a scan, and the median wall time. */
export function costOf(
  samples: CostSample[],
  design: Design,
): { usPerScan: number; medianUsPerScan: number; walBytesPerScan: number; medianMs: number } {
  const own = samples.filter((sample) => sample.design === design);
  const cpu = own.reduce((sum, sample) => sum + sample.cpuUs, 0);
  const scans = own.reduce((sum, sample) => sum + sample.scans, 0);
  const walls = own.map((sample) => sample.wallMs).sort((a, b) => a - b);
  const perScan = own.map((sample) => sample.cpuUs / sample.scans).sort((a, b) => a - b);
  const wal = own.reduce((sum, sample) => sum + sample.walBytes, 0);
  return {
    usPerScan: scans ? cpu / scans : 0,
    medianUsPerScan: perScan[Math.floor(perScan.length / 2)] ?? 0,
    walBytesPerScan: scans ? wal / scans : 0,
    medianMs: walls[Math.floor(walls.length / 2)] ?? 0,
  };
}
