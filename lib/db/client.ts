import { log } from "@/lib/log";
import { processSingleton } from "@/lib/process-singleton";
import { PrismaPg } from "@prisma/adapter-pg";
import type pg from "pg";
import { type Prisma, PrismaClient } from "./generated/client";
import { closePool, createPool, pool } from "./pool";
import { closeReplica, usableReplicaPool } from "./replica";

export type Db = InstanceType<typeof PrismaClient>;

/** The process client or an interactive transaction's: what data access that may run inside a transaction takes. */
export type DbClient = Prisma.TransactionClient;

/** Prisma on the process pool (lib/db/pool.ts), so Prisma and direct `pg` queries share one set of connections. */
const processDb = processSingleton("db", () => prismaOn(pool()));

/** The process's one Prisma client (shared by hot reloads and bundles). */
export function db(): Db {
  return processDb.get();
}

/** Prisma on the replica's pool, one per pool. */
const processReplicaDbs = processSingleton("db.replica-clients", () => new WeakMap<pg.Pool, Db>());

/**
 * For reads that may trail the last write by up to READ_REPLICA_MAX_LAG_MS (analytics, exports):
 * the read replica while it is usable (lib/db/replica.ts), otherwise the primary. Nothing that must
 * see its own write reads here.
 */
export function readDb(): Db {
  const replica = usableReplicaPool();
  if (!replica) return db();
  const clients = processReplicaDbs.get();
  let client = clients.get(replica);
  if (!client) clients.set(replica, (client = prismaOn(replica)));
  return client;
}

/** What each open transaction (by its client) runs once it has committed. */
const afterCommitQueues = processSingleton("db.afterCommit", () => new WeakMap<DbClient, (() => void)[]>());

/**
 * Runs `work` in one transaction: a service that commits several stores' writes together opens it
 * here and hands the client to each store function; the queries themselves stay in the stores.
 * What `work` queued with afterCommit runs once the commit has succeeded, never for a rollback.
 */
export async function transaction<Result>(
  work: (client: DbClient) => Promise<Result>,
  options?: { maxWait?: number; timeout?: number },
): Promise<Result> {
  const queued: (() => void)[] = [];
  const result = await db().$transaction((client) => {
    afterCommitQueues.get().set(client, queued);
    return work(client);
  }, options);
  for (const callback of queued) runAfterCommit(callback);
  return result;
}

/**
 * Runs `work` in a savepoint of the caller's transaction (`client`, from transaction()): when it
 * throws, its writes alone are taken back and the transaction may go on; the error is thrown on.
 */
export async function withSavepoint<Result>(client: DbClient, work: () => Promise<Result>): Promise<Result> {
  await client.$executeRaw`SAVEPOINT within_transaction`;
  try {
    const result = await work();
    await client.$executeRaw`RELEASE SAVEPOINT within_transaction`;
    return result;
  } catch (error) {
    // A connection gone meanwhile fails the rollback too: the error that matters is work's.
    await client.$executeRaw`ROLLBACK TO SAVEPOINT within_transaction`.catch(() => undefined);
    throw error;
  }
}

/** PostgreSQL aborted the transaction for a deadlock or a write conflict: run again, it may well commit. */
export function isWriteConflict(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (error as { code?: unknown }).code === "P2034" || /deadlock detected|could not serialize access/.test(error.message);
}

/**
 * Queues `callback` for after the commit of the transaction `client` belongs to (one opened by
 * transaction()): what others must hear of a write (a cache to drop) is told only once it is
 * true, so no instance can read the old row back into its cache, and never for a rollback.
 */
export function afterCommit(client: DbClient, callback: () => void): void {
  const queue = afterCommitQueues.get().get(client);
  if (!queue) throw new Error("afterCommit needs the client of a transaction opened by transaction() (lib/db/client.ts).");
  queue.push(callback);
}

/** The commit has happened: a failing callback is logged and the others still run. */
function runAfterCommit(callback: () => void): void {
  try {
    callback();
  } catch (error) {
    log().error({ err: error }, "A step after a commit failed; the commit stands.");
  }
}

export function createDb(connectionString: string, poolSize: number): Db {
  return new PrismaClient({ adapter: new PrismaPg(createPool(connectionString, poolSize), { disposeExternalPool: true }) });
}

function prismaOn(sharedPool: pg.Pool): Db {
  return new PrismaClient({ adapter: new PrismaPg(sharedPool) });
}

/** Disconnects Prisma and ends the process pool; both are recreated on next use. */
export async function disconnectDb(): Promise<void> {
  await processDb.reset()?.$disconnect();
  processReplicaDbs.reset();
  await closeReplica();
  await closePool();
}
