import { config } from "@/lib/config";
import { processSingleton } from "@/lib/process-singleton";
import pg from "pg";

/**
 * The process's one PostgreSQL pool. Prisma's adapter runs on it (lib/db/client.ts) and the hot path's
 * direct `pg` queries (resolution reads, scan writes) use it too, so a process holds one set of
 * connections bounded by DATABASE_POOL_SIZE instead of one per client.
 */
const processPool = processSingleton("db.pool", () =>
  createPool(databaseUrl(), config().DATABASE_POOL_SIZE, { sharedSession: sharedWriterPool() }),
);

export function pool(): pg.Pool {
  return processPool.get();
}

/**
 * The scan writer's own connections, beside the process pool: a batch holds its connection for as
 * long as its statement runs (up to seconds), and lookups of cold links must never queue behind
 * it. The scan buffer splits scans by link over as many buffers as it has connections
 * (scanWriterConnections), each writing its batches one at a time on its own, so two batches run at
 * once on two cores. With a pool of one connection (the embedded database, which takes no second
 * one) the writer shares it, one batch at a time.
 */
const WRITER_CONNECTIONS = 2;
const processWriterPool = processSingleton("db.writer-pool", () =>
  sharedWriterPool() ? pool() : createPool(databaseUrl(), WRITER_CONNECTIONS),
);

function sharedWriterPool(): boolean {
  return config().DATABASE_POOL_SIZE <= 1;
}

/** How many scan batches may be written at once: one for each of the writer's connections. */
export function scanWriterConnections(): number {
  return sharedWriterPool() ? 1 : WRITER_CONNECTIONS;
}

export function writerPool(): pg.Pool {
  return processWriterPool.get();
}

/**
 * The pool a transaction's connection is watched from (watchConnection in lib/db/checkout.ts): the
 * process pool, beside the writer's. None with one shared connection (the embedded database): a
 * probe would wait for the very connection it watches, and a local socket does not die in silence.
 */
export function connectionWatchdog(): pg.Pool | null {
  return sharedWriterPool() ? null : pool();
}

/**
 * `sharedSession`: the pool is the process's one connection, as on the embedded database (one
 * PGlite session shared by every connection), where the named statements an ended connection
 * prepared (the pool ends one idle for 10 s) are still there: a new connection's first use of each
 * name would fail ("prepared statement … already exists"), every scan write and cold lookup from
 * then on. So a new connection to it first clears them; nothing else uses the session meanwhile.
 * Only there: on PostgreSQL behind a pooler a DEALLOCATE ALL could drop other clients' statements.
 */
export function createPool(connectionString: string, max: number, options: { sharedSession?: boolean } = {}): pg.Pool {
  // A bounded connect so a hung database fails fast instead of stacking requests.
  const created = new pg.Pool({
    connectionString,
    max,
    connectionTimeoutMillis: 5000,
    // The kernel's probes on an idle connection: one whose peer vanished in silence (a cut whose
    // packets are dropped, a NAT that forgot it) fails instead of being handed out for ever.
    keepAlive: true,
    keepAliveInitialDelayMillis: 5000,
    ...(options.sharedSession && {
      verify: (client: pg.PoolClient, done: (error?: Error) => void) =>
        void clearEmbeddedSession(client).then(() => done(), done),
    }),
  });
  // An idle connection the server drops emits 'error' on the pool; unhandled, it would end the process.
  created.on("error", () => undefined);
  return created;
}

/** Ends the process pools (the next pool() opens a fresh one, e.g. after DATABASE_URL changed). */
export async function closePool(): Promise<void> {
  const writer = processWriterPool.reset();
  const main = processPool.reset();
  if (writer && writer !== main) await writer.end();
  await main?.end();
}

function databaseUrl(): string {
  const url = config().DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set: start the service with `npm start`, which starts the embedded database.");
  return url;
}

/** Deallocates the named statements left in the session when it is the embedded database's (PGlite reports a wasm32 build). */
async function clearEmbeddedSession(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ embedded: boolean }>("SELECT version() LIKE '%wasm32%' AS embedded");
  if (rows[0]?.embedded) await client.query("DEALLOCATE ALL");
}
