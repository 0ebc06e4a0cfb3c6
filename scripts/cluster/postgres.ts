import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { appendFile, chmod, chown, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A PostgreSQL server this process started from Debian's binaries, with its own data directory. */
export type OwnPostgres = {
  url: string;
  dataDir: string;
  start(): Promise<void>;
  /** `immediate` is a crash as far as the server can tell: no checkpoint, recovery on the next start. */
  stop(mode?: "fast" | "immediate"): Promise<void>;
};

/** Where Debian's newest PostgreSQL keeps its programs; null when none is installed. */
export function postgresBinDir(): string | null {
  if (!existsSync("/usr/lib/postgresql")) return null;
  const versions = readdirSync("/usr/lib/postgresql").sort((a, b) => Number(b) - Number(a));
  const dir = versions[0] && path.join("/usr/lib/postgresql", versions[0], "bin");
  return dir && existsSync(path.join(dir, "pg_ctl")) ? dir : null;
}

/** PostgreSQL refuses to run as root: as root, its programs run as the postgres user. */
async function asServerUser(program: string, args: string[]): Promise<void> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("PostgreSQL's server programs are not installed (Debian: apt-get install postgresql).");
  const command = path.join(bin, program);
  if (process.getuid?.() === 0) await run("runuser", ["-u", "postgres", "--", command, ...args]);
  else await run(command, args);
}

/** A directory the server's user can write, inside `parent`. */
async function serverDir(parent: string, name: string): Promise<string> {
  const dir = path.join(parent, name);
  await mkdir(dir, { recursive: true });
  // PostgreSQL refuses a data directory others can read.
  await chmod(dir, 0o700);
  if (process.getuid?.() === 0) {
    const id = async (flag: string) => Number((await run("id", [flag, "postgres"])).stdout);
    await chown(parent, await id("-u"), await id("-g"));
    await chown(dir, await id("-u"), await id("-g"));
  }
  return dir;
}

/** Settings for a server on loopback: durability off, as its data is the run's own and thrown away. */
const settings = (port: number, socketDir: string) =>
  [
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${socketDir}'`,
    "fsync = off",
    "full_page_writes = off",
    "max_connections = 100",
    "shared_buffers = 32MB",
    "",
  ].join("\n");

function ownServer(dataDir: string, port: number): OwnPostgres {
  const pgCtl = (action: string, extra: string[] = []) =>
    asServerUser("pg_ctl", ["-D", dataDir, "-l", `${dataDir}.log`, "-w", ...extra, action]);
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    dataDir,
    start: () => pgCtl("start"),
    stop: (mode = "fast") => pgCtl("stop", ["-m", mode]),
  };
}

/** A new, started primary in `parent`/`name`; trust authentication, replication allowed from loopback (initdb's default). */
export async function startOwnPrimary(parent: string, name: string, port: number): Promise<OwnPostgres> {
  const dataDir = await serverDir(parent, name);
  await asServerUser("initdb", ["-D", dataDir, "-A", "trust", "-U", "postgres", "--no-sync"]);
  await appendFile(path.join(dataDir, "postgresql.conf"), settings(port, parent));
  const server = ownServer(dataDir, port);
  await server.start();
  return server;
}

/**
 * A streaming replica of the server at `primaryUrl`, copied with pg_basebackup and started on
 * `port`. The primary must accept replication connections from this machine's user `postgres`
 * (or the URL's user).
 */
export async function startStreamingReplica(
  primaryUrl: string,
  parent: string,
  name: string,
  port: number,
): Promise<OwnPostgres> {
  const primary = new URL(primaryUrl);
  const dataDir = await serverDir(parent, name);
  await asServerUser("pg_basebackup", [
    "-h",
    primary.hostname,
    "-p",
    primary.port || "5432",
    "-U",
    decodeURIComponent(primary.username) || "postgres",
    "-D",
    dataDir,
    "-R",
    "-X",
    "stream",
  ]);
  await appendFile(path.join(dataDir, "postgresql.conf"), settings(port, parent));
  // Debian keeps a cluster's access rules in /etc, outside the data directory the backup copied.
  if (!existsSync(path.join(dataDir, "pg_hba.conf")))
    await writeFile(path.join(dataDir, "pg_hba.conf"), "local all all trust\nhost all all 127.0.0.1/32 trust\n");
  const server = ownServer(dataDir, port);
  await server.start();
  return { ...server, url: `postgresql://${primary.username || "postgres"}@127.0.0.1:${port}${primary.pathname}` };
}
