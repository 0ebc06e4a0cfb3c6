import { log } from "@/lib/log";
import { processSingleton } from "@/lib/process-singleton";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { migrate } from "./migrate";

/** Whether this process's migrations are applied, or still waiting for the database to answer. */
export type SchemaState = { status: "current" } | { status: "waiting"; reason: string };

const processSchema = processSingleton<{ state: SchemaState }>("db.schema", () => ({ state: { status: "current" } }));

export function schemaState(): SchemaState {
  return processSchema.get().state;
}

/** How often a process that started without its database asks again. */
const RETRY_MS = 2000;

/**
 * Applies pending migrations at start. When the database does not answer (down, cut off, still
 * starting), the process starts anyway and serves what it can without it (links it has seen, and
 * with NATS every scan), applies the migrations as soon as the database answers, and says so in
 * health meanwhile: a database blip costs the blip, not the blip plus a supervisor's restart loop.
 * A migration the database refuses (bad SQL, an edited migration) still fails the start, as before.
 */
export async function migrateAtStart(databaseUrl: string, retryMs = RETRY_MS): Promise<void> {
  try {
    logAppliedMigrations(await migrate(databaseUrl));
  } catch (error) {
    if (!isUnreachable(error)) throw error;
    const reason = unreachableReason(error);
    processSchema.get().state = { status: "waiting", reason };
    log().warn(
      { reason },
      `PostgreSQL does not answer (${reason}): serving what this instance can without it, and applying migrations when it answers`,
    );
    void migrateOnceReachable(databaseUrl, retryMs);
  }
}

async function migrateOnceReachable(databaseUrl: string, retryMs: number): Promise<void> {
  for (;;) {
    await sleep(retryMs, undefined, { ref: false });
    try {
      logAppliedMigrations(await migrate(databaseUrl));
      processSchema.get().state = { status: "current" };
      log().info("PostgreSQL answers again: migrations are current");
      return;
    } catch (error) {
      if (isUnreachable(error)) continue;
      processSchema.get().state = { status: "waiting", reason: "a migration failed; see the log" };
      log().fatal({ err: error }, "a migration failed after PostgreSQL came back; this instance cannot serve until it is fixed");
      return;
    }
  }
}

export function logAppliedMigrations(applied: string[]): void {
  if (applied.length) log().info({ migrations: applied }, "applied migrations");
}

/** Socket errors of a database that is down, cut off or not resolvable. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
]);

/**
 * A failure to reach the database, as opposed to one it answered or a migration this runner
 * refuses: a socket error, a connection pg ended or gave up on, a connection exception (SQLSTATE
 * class 08), the server shutting down or starting up (57P), or out of connections (53300, as when
 * every instance of a cluster restarts at once).
 */
export function isUnreachable(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    const code = (current as { code?: unknown }).code;
    if (current instanceof pg.DatabaseError) return /^(08|57P|53300)/.test(code as string);
    if (typeof code === "string" && NETWORK_CODES.has(code)) return true;
    if (/^Connection terminated|timeout expired/i.test(current.message)) return true;
  }
  return false;
}

function unreachableReason(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : error instanceof Error ? error.message : String(error);
}
