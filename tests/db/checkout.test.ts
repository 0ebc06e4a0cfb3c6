import { inTransaction, withClient } from "@/lib/db/checkout";
import { createPool } from "@/lib/db/pool";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTcpCut, type TcpCut } from "../support/tcp-cut";

/**
 * A connection PostgreSQL ends while a client is checked out of the pool: pg-pool takes its own
 * 'error' listener off a client it hands out, and an 'error' event with no listener ends the process.
 */
const databaseUrl = process.env.DATABASE_URL!;
const from = createPool(databaseUrl, 2);
const admin = new pg.Pool({ connectionString: databaseUrl, max: 1 });

afterAll(async () => {
  await from.end();
  await admin.end();
});

async function terminate(backend: number): Promise<void> {
  await admin.query("SELECT pg_terminate_backend($1)", [backend]);
}

describe("a client checked out of the pool whose connection PostgreSQL ends", () => {
  it("fails the work with the connection's error instead of ending the process, and is discarded by the pool", async () => {
    const work = withClient(from, async (client) => {
      const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      await terminate(rows[0]!.pid);
      // Between queries: the connection's end arrives as an 'error' event on the idle client.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await client.query("SELECT 1");
    });
    await expect(work).rejects.toThrow(/connection/i);
    expect(from.totalCount).toBe(0);
    const { rows } = await from.query<{ one: number }>("SELECT 1 AS one");
    expect(rows[0]!.one).toBe(1);
  });

  it("rolls a transaction back when its connection ends mid-statement, and the next transaction runs on a new one", async () => {
    await from.query("CREATE TABLE IF NOT EXISTS checkout_probe (id int)");
    const work = inTransaction(from, async (client) => {
      await client.query("INSERT INTO checkout_probe VALUES (1)");
      const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      await Promise.all([client.query("SELECT pg_sleep(5)"), terminate(rows[0]!.pid)]);
    });
    await expect(work).rejects.toThrow(/terminat/i);
    await inTransaction(from, (client) => client.query("INSERT INTO checkout_probe VALUES (2)"));
    const { rows } = await from.query<{ id: number }>("SELECT id FROM checkout_probe ORDER BY id");
    expect(rows.map((row) => row.id)).toEqual([2]);
  });
});

describe("a transaction watched from another pool (the scan writer's watchdog)", () => {
  let cut: TcpCut;
  let throughCut: pg.Pool;

  beforeAll(async () => {
    cut = await startTcpCut(Number(new URL(databaseUrl).port || 5432));
    const url = new URL(databaseUrl);
    url.port = String(cut.port);
    throughCut = createPool(url.toString(), 2);
  });

  afterAll(async () => {
    await throughCut?.end();
    await cut?.close();
  });

  it("waits for a statement that runs long, as long as its backend is running it", async () => {
    const started = Date.now();
    const slept = await inTransaction(throughCut, (client) => client.query("SELECT pg_sleep(3)"), { watchdog: admin });
    expect(slept.rowCount).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
  });

  it("gives up a connection cut in silence within seconds, discards it, and the next transaction runs on a new one", async () => {
    await from.query("CREATE TABLE IF NOT EXISTS watched_probe (id int)");
    const work = inTransaction(
      throughCut,
      async (client) => {
        await client.query("INSERT INTO watched_probe VALUES (1)");
        // The statement's answer never arrives: the cut drops every byte of the connections open at it.
        await Promise.all([client.query("SELECT pg_sleep(0.3)"), cut.cut({ silent: true })]);
      },
      { watchdog: admin, settings: { idle_in_transaction_session_timeout: "1s" } },
    );
    const started = Date.now();
    await expect(work).rejects.toThrow(/stopped answering/);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(throughCut.totalCount).toBe(0);
    await cut.restore();
    await inTransaction(throughCut, (client) => client.query("INSERT INTO watched_probe VALUES (2)"), { watchdog: admin });
    // The abandoned transaction never commits: PostgreSQL ended it once it sat idle.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const { rows } = await from.query<{ id: number }>("SELECT id FROM watched_probe ORDER BY id");
    expect(rows.map((row) => row.id)).toEqual([2]);
  });
});
