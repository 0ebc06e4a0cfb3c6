import { afterEach, describe, expect, it } from "vitest";
import { db, disconnectDb } from "./client";
import { pool } from "./pool";

afterEach(disconnectDb);

describe("the process pool", () => {
  it("is the pool Prisma queries run on, so the process holds one set of connections", async () => {
    await disconnectDb();
    expect(pool().totalCount).toBe(0);
    await db().$queryRaw`SELECT 1`;
    expect(pool().totalCount).toBe(1);
    const { rows } = await pool().query<{ answer: number }>("SELECT 41 + 1 AS answer");
    expect(rows[0]!.answer).toBe(42);
    expect(pool().totalCount).toBe(1);
  });

  it("is recreated after disconnectDb, so a changed DATABASE_URL takes effect", async () => {
    const first = pool();
    await disconnectDb();
    expect(pool()).not.toBe(first);
    expect(first.ending).toBe(true);
  });
});
