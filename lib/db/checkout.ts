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
export async function withClient<Result>(from: pg.Pool, work: (client: pg.PoolClient) => Promise<Result>): Promise<Result> {
  const client = await from.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken ??= error;
  };
  client.on("error", onError);
  try {
    return await work(client);
  } catch (error) {
    if (error instanceof ConnectionLeftUnusable) broken ??= error.cause;
    throw error instanceof ConnectionLeftUnusable ? error.failure : error;
  } finally {
    client.off("error", onError);
    client.release(broken);
  }
}

/**
 * Runs `work` in one transaction on a client of `from`: `begin` (BEGIN, and any SET LOCAL the work
 * needs), the work, COMMIT; on any failure ROLLBACK and the failure rethrown. A client whose
 * ROLLBACK fails is in no known state, so it is released as broken.
 */
export function inTransaction<Result>(
  from: pg.Pool,
  work: (client: pg.PoolClient) => Promise<Result>,
  begin = "BEGIN",
): Promise<Result> {
  return withClient(from, async (client) => {
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
  });
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
