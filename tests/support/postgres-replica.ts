import { migrate } from "@/lib/db/migrate";
import { startOwnPrimary, startStreamingReplica } from "@/scripts/cluster/postgres";
import { freePort } from "@/server/app-process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";

/** A primary and its streaming replica, both owned by the test (Debian's PostgreSQL binaries, run as the postgres user). */
export type ReplicatedDatabase = {
  primaryUrl: string;
  replicaUrl: string;
  /** Stops the replica replaying WAL: it falls behind, as a replica under load or cut from its primary does. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  /** Stops the primary at once, as a crash does; the replica keeps what it had replayed. */
  stopPrimary(): Promise<void>;
  startPrimary(): Promise<void>;
  close(): Promise<void>;
};

export async function startReplicatedDatabase(): Promise<ReplicatedDatabase> {
  const dir = await mkdtemp(path.join(tmpdir(), "permalink-replica-"));
  const primary = await startOwnPrimary(dir, "primary", await freePort());
  // Before the copy, so the replica starts with the schema.
  await migrate(primary.url);
  const replica = await startStreamingReplica(primary.url, dir, "replica", await freePort());
  const onReplica = async (sql: string) => {
    const client = new pg.Client({ connectionString: replica.url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    primaryUrl: primary.url,
    replicaUrl: replica.url,
    pauseReplay: () => onReplica("SELECT pg_wal_replay_pause()"),
    resumeReplay: () => onReplica("SELECT pg_wal_replay_resume()"),
    stopReplica: () => replica.stop("immediate"),
    startReplica: () => replica.start(),
    stopPrimary: () => primary.stop("immediate"),
    startPrimary: () => primary.start(),
    close: async () => {
      await replica.stop("immediate").catch(() => undefined);
      await primary.stop("immediate").catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
