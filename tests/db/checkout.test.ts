import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { inTransaction, withClient } from "@/lib/db/checkout";
import { createPool } from "@/lib/db/pool";

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
