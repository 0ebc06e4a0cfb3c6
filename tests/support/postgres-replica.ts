import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { appendFile, chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { migrate } from "@/lib/db/migrate";
import { freePort } from "@/scripts/app-process";

const run = promisify(execFile);

/** A primary and its streaming replica, both owned by the test (Debian's PostgreSQL binaries, run as the postgres user). */
export type ReplicatedDatabase = {
  primaryUrl: string;
  replicaUrl: string;
  /** Stops the replica replaying WAL: it falls behind, as a replica under load or cut from its primary does. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  close(): Promise<void>;
};

const bin = (program: string) => {
  const versions = readdirSync("/usr/lib/postgresql").sort((a, b) => Number(b) - Number(a));
  return path.join("/usr/lib/postgresql", versions[0]!, "bin", program);
};

/** As the postgres user: PostgreSQL refuses to run as root. */
const asPostgres = (program: string, args: string[]) => run("runuser", ["-u", "postgres", "--", bin(program), ...args]);

const serverSettings = (port: number, socketDir: string) =>
  [
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${socketDir}'`,
    "fsync = off",
    "full_page_writes = off",
    "max_connections = 50",
    "shared_buffers = 32MB",
    "",
  ].join("\n");

export async function startReplicatedDatabase(): Promise<ReplicatedDatabase> {
  const dir = await mkdtemp(path.join(tmpdir(), "permalink-replica-"));
  await chown(dir, Number((await run("id", ["-u", "postgres"])).stdout), Number((await run("id", ["-g", "postgres"])).stdout));
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const primaryDir = path.join(dir, "primary");
  const replicaDir = path.join(dir, "replica");
  const pgCtl = (dataDir: string, action: string, extra: string[] = []) =>
    asPostgres("pg_ctl", ["-D", dataDir, "-l", `${dataDir}.log`, "-w", ...extra, action]);

  // initdb's trust template allows replication connections from 127.0.0.1.
  await asPostgres("initdb", ["-D", primaryDir, "-A", "trust", "-U", "postgres", "--no-sync"]);
  await appendFile(path.join(primaryDir, "postgresql.conf"), serverSettings(primaryPort, dir));
  await pgCtl(primaryDir, "start");
  await asPostgres("pg_basebackup", [
    "-h",
    "127.0.0.1",
    "-p",
    String(primaryPort),
    "-U",
    "postgres",
    "-D",
    replicaDir,
    "-R",
    "-X",
    "stream",
  ]);
  await appendFile(path.join(replicaDir, "postgresql.conf"), serverSettings(replicaPort, dir));
  await pgCtl(replicaDir, "start");

  const primaryUrl = `postgresql://postgres@127.0.0.1:${primaryPort}/postgres`;
  const replicaUrl = `postgresql://postgres@127.0.0.1:${replicaPort}/postgres`;
  await migrate(primaryUrl);
  const onReplica = async (sql: string) => {
    const client = new pg.Client({ connectionString: replicaUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    primaryUrl,
    replicaUrl,
    pauseReplay: () => onReplica("SELECT pg_wal_replay_pause()"),
    resumeReplay: () => onReplica("SELECT pg_wal_replay_resume()"),
    stopReplica: async () => void (await pgCtl(replicaDir, "stop", ["-m", "immediate"])),
    startReplica: async () => void (await pgCtl(replicaDir, "start")),
    close: async () => {
      await pgCtl(replicaDir, "stop", ["-m", "immediate"]).catch(() => undefined);
      await pgCtl(primaryDir, "stop", ["-m", "immediate"]).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
