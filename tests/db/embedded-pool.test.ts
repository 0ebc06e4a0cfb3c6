import type { ScanRow } from "@/lib/analytics/enrich";
import { writeScanBatch } from "@/lib/analytics/store/append";
import { resetConfig } from "@/lib/config";
import { migrate } from "@/lib/db/migrate";
import { closePool, pool } from "@/lib/db/pool";
import { EMBEDDED_POOL_SIZE, type EmbeddedDatabase, startEmbeddedDatabase } from "@/server/embedded-database";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { scanRow } from "../support/analytics";

/**
 * The embedded database (`npm start` without DATABASE_URL) is one PGlite session shared by every
 * connection: what one connection prepared is still there for the next.
 */

let own: { database: EmbeddedDatabase; dataDir: string } | undefined;

afterAll(async () => {
  await closePool();
  await own?.database.close();
  if (own) await rm(own.dataDir, { recursive: true, force: true });
});

function scan(): ScanRow {
  return scanRow("lnk_embedded", { country: null, device: null, visitor: "0".repeat(32) });
}

describe("the process pool on the embedded database", () => {
  it("writes scan batches after its connection idled out and a new one took its place", async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "permalink-embedded-pool-"));
    own = { database: await startEmbeddedDatabase(dataDir), dataDir };
    await migrate(own.database.url);
    // As server/boot.ts configures the process when it starts the embedded database.
    process.env.DATABASE_URL = own.database.url;
    process.env.DATABASE_POOL_SIZE = String(EMBEDDED_POOL_SIZE);
    resetConfig();
    await closePool();

    await writeScanBatch(randomUUID(), [scan()]);
    // A quiet spell: the pool ends its idle connection (pg's default, 10 s), and the next write opens another.
    await vi.waitFor(() => expect(pool().totalCount).toBe(0), { timeout: 15_000, interval: 500 });
    await writeScanBatch(randomUUID(), [scan()]);

    const { rows } = await pool().query<{ batches: number }>("SELECT count(*)::int AS batches FROM scan_batches");
    expect(rows).toEqual([{ batches: 2 }]);
  }, 60_000);
});
