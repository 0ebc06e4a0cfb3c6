import { withDeadline } from "@/lib/deadline";
import type pg from "pg";

/**
 * Runs `work` on a client checked out of `from`, and releases it however `work` ends.
 *
 * pg-pool takes its own 'error' listener off a client while it is checked out: a connection the
 * server ends (`pg_terminate_backend`, a restart) or the network cuts while it is out emits 'error'
 * with no listener, and an unhandled 'error' ends the process, with every short link it serves.
 * So the client has a listener of its own for as long as it is out. The error also fails the
 * client's pending query, so `work` fails as it would on any refused query, and the client is
 * released with the error: the pool discards the broken connection instead of handing it out again.
 */
export async function withClient<Result>(
  from: pg.Pool,
  work: (client: pg.PoolClient) => Promise<Result>,
  options: { watchdog?: pg.Pool | null } = {},
): Promise<Result> {
  const client = await from.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken ??= error;
  };
  client.on("error", onError);
  const watching = options.watchdog ? watchConnection(client, options.watchdog) : null;
  try {
    return await work(client);
  } catch (error) {
    if (error instanceof ConnectionLeftUnusable) broken ??= error.cause;
    throw error instanceof ConnectionLeftUnusable ? error.failure : error;
  } finally {
    watching?.stop();
    client.off("error", onError);
    client.release(broken);
  }
}

/** How often, from how long into the work, the watchdog asks whether the client's backend still works for it. */
const WATCH_EVERY_MS = 500;
/** A probe unanswered by then counts as a strike: the database is away. */
const PROBE_DEADLINE_MS = 1000;
/** Strikes in a row that end the connection: one may be a backend between two statements. */
const STRIKES = 2;

/**
 * A connection can die in silence: a network cut whose packets vanish (no FIN, no RST reaches
 * either end), a firewall or NAT that dropped its state, a database host that hangs. Its pending
 * query then waits for an answer that never comes, and the work waits with it, for as long as
 * the kernel keeps retransmitting (minutes). The watchdog asks, on another pool, whether the
 * client's backend is still running a statement (pg_stat_activity by its pid): while it is, the
 * work waits, however long its statement takes; when the backend is gone or has been idle (its
 * answer lost on the way), or the database does not answer the probe itself, twice in a row, the
 * connection is destroyed. Its pending query fails, so the work fails as on any refused query,
 * and the client is released as broken.
 */
function watchConnection(client: pg.PoolClient, probes: pg.Pool): { stop(): void } {
  const backend = (client as unknown as { processID: number | null }).processID;
  let strikes = 0;
  let stopped = false;
  const probe = async () => {
    const working = await withDeadline(
      probes.query<{ working: boolean }>({
        text: `SELECT state = 'active' OR state_change > now() - interval '1 second' AS working FROM pg_stat_activity WHERE pid = $1`,
        values: [backend],
        query_timeout: PROBE_DEADLINE_MS,
      } as pg.QueryConfig),
      PROBE_DEADLINE_MS,
    ).then(
      ({ rows }) => rows[0]?.working === true,
      () => false,
    );
    if (stopped) return;
    strikes = working ? 0 : strikes + 1;
    if (strikes >= STRIKES) client.connection.stream.destroy(new Error("The database connection stopped answering."));
    else timer = setTimeout(() => void probe(), WATCH_EVERY_MS);
  };
  let timer = setTimeout(() => void probe(), WATCH_EVERY_MS);
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** What a transaction sets up before its work, in the same round trip as its BEGIN. */
export type TransactionOptions = {
  /**
   * Settings for this transaction only (SET LOCAL), such as `{ lock_timeout: "3s", jit: "off" }`: the
   * caller's constants, never input (a name or value outside their plain characters is refused).
   */
  settings?: Readonly<Record<string, string | number>>;
  /** A transaction-level advisory lock taken before the work: `shared` beside other holders, `exclusive` alone. */
  advisoryLock?: { key: number; mode: "shared" | "exclusive" };
  /** A pool to watch the connection from (watchConnection): a connection that dies in silence ends the work. */
  watchdog?: pg.Pool | null;
};

/**
 * Runs `work` in one transaction on a client of `from`: BEGIN with the options' settings and lock,
 * the work, COMMIT; on any failure ROLLBACK and the failure rethrown. A client whose ROLLBACK
 * fails is in no known state, so it is released as broken.
 */
export function inTransaction<Result>(
  from: pg.Pool,
  work: (client: pg.PoolClient) => Promise<Result>,
  options: TransactionOptions = {},
): Promise<Result> {
  const begin = beginStatement(options);
  return withClient(
    from,
    async (client) => {
      try {
        await client.query(begin);
        const result = await work(client);
        await client.query("COMMIT");
        return result;
      } catch (failure) {
        const rollback = await client.query("ROLLBACK").then(
          () => null,
          (error: Error) => error,
        );
        if (rollback) throw new ConnectionLeftUnusable(failure, rollback);
        throw failure;
      }
    },
    { watchdog: options.watchdog },
  );
}

const SETTING_NAME = /^[a-z_]+(?:\.[a-z_]+)?$/;
const SETTING_VALUE = /^[A-Za-z0-9 ._-]*$/;

/** BEGIN and the options' statements, sent as one simple query (one round trip). */
function beginStatement({ settings = {}, advisoryLock }: TransactionOptions): string {
  const statements = ["BEGIN"];
  for (const [name, value] of Object.entries(settings)) {
    if (!SETTING_NAME.test(name) || !SETTING_VALUE.test(String(value)))
      throw new Error(`Not a setting a transaction may take: ${name} = ${value}`);
    statements.push(`SET LOCAL ${name} = '${value}'`);
  }
  if (advisoryLock) {
    if (!Number.isSafeInteger(advisoryLock.key)) throw new Error(`Not an advisory lock key: ${advisoryLock.key}`);
    statements.push(`SELECT pg_advisory_xact_lock${advisoryLock.mode === "shared" ? "_shared" : ""}(${advisoryLock.key})`);
  }
  return statements.join("; ");
}

/** A transaction's failure whose ROLLBACK failed too: withClient rethrows `failure` and discards the connection. */
class ConnectionLeftUnusable extends Error {
  constructor(
    readonly failure: unknown,
    override readonly cause: Error,
  ) {
    super("the connection could not roll back");
  }
}
