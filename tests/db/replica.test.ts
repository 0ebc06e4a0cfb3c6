import { writeScanBatch } from "@/lib/analytics/store/append";
import { resetConfig } from "@/lib/config";
import { disconnectDb } from "@/lib/db/client";
import { checkReplica } from "@/lib/db/replica";
import { resolutionRuntime } from "@/lib/resolution/runtime";
import { findLink } from "@/lib/resolution/store";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newUser, type TestUser } from "../support/api";
import { askHealth, HEALTH_OPERATOR_TOKEN } from "../support/health";
import { startReplicatedDatabase, type ReplicatedDatabase } from "../support/postgres-replica";
import { eventually, iphoneScan } from "../support/scan-stream";

/** A primary and a streaming replica of its own (pg_basebackup), so the test can pause, lag and stop the replica. */
let database: ReplicatedDatabase;
let user: TestUser;
const testDatabaseUrl = process.env.DATABASE_URL;

async function usingMaxLag(ms: number): Promise<void> {
  process.env.READ_REPLICA_MAX_LAG_MS = String(ms);
  resetConfig();
}

async function onPrimary(sql: string, values: unknown[]): Promise<void> {
  const client = new pg.Client({ connectionString: database.primaryUrl });
  await client.connect();
  try {
    await client.query(sql, values);
  } finally {
    await client.end();
  }
}

async function newLink(destination: string): Promise<{ id: string; slug: string }> {
  const response = await call("POST", "/api/links", { token: user.token, body: { destination } });
  expect(response.status).toBe(201);
  return response.body;
}

const destinationOf = async (slug: string) => (await findLink(null, slug))?.destination ?? null;

async function caughtUp(): Promise<void> {
  await database.resumeReplay();
  await eventually(async () => expect(await checkReplica()).toEqual({ status: "ok", lagMs: 0 }));
}

beforeAll(async () => {
  database = await startReplicatedDatabase();
  await disconnectDb();
  process.env.DATABASE_URL = database.primaryUrl;
  process.env.READ_DATABASE_URL = database.replicaUrl;
  process.env.OPERATOR_TOKEN = HEALTH_OPERATOR_TOKEN;
  await usingMaxLag(60_000);
  user = await newUser("replica");
}, 120_000);

afterAll(async () => {
  await disconnectDb();
  process.env.DATABASE_URL = testDatabaseUrl;
  delete process.env.READ_DATABASE_URL;
  delete process.env.READ_REPLICA_MAX_LAG_MS;
  delete process.env.OPERATOR_TOKEN;
  resetConfig();
  await database?.close();
});

describe("reads from a PostgreSQL replica (READ_DATABASE_URL)", () => {
  it("reads a cold miss from the replica while it is within the lag bound", async () => {
    const link = await newLink("https://example.com/before");
    await caughtUp();
    await database.pauseReplay();
    await onPrimary("UPDATE links SET destination = $1 WHERE id = $2", ["https://example.com/after", link.id]);
    expect(await checkReplica()).toMatchObject({ status: "ok" });
    // The replica has not replayed the change: its answer shows where the read went.
    expect(await destinationOf(link.slug)).toBe("https://example.com/before");
    await caughtUp();
    expect(await destinationOf(link.slug)).toBe("https://example.com/after");
  });

  it("reads a link changed a moment ago from the primary, though the replica has not replayed the change", async () => {
    // The resolution runtime is what listens for changes (both doors start it).
    resolutionRuntime();
    const link = await newLink("https://example.com/repoint-before");
    await caughtUp();
    await database.pauseReplay();
    const repointed = await call("PATCH", `/api/links/${link.id}`, {
      token: user.token,
      body: { destination: "https://example.com/repoint-after" },
    });
    expect(repointed.status).toBe(200);
    expect(await checkReplica()).toMatchObject({ status: "ok" });
    expect(await destinationOf(link.slug)).toBe("https://example.com/repoint-after");
  });

  it("resolves a link created a moment ago on the primary at once, through a replica that has not seen it", async () => {
    await caughtUp();
    await database.pauseReplay();
    const link = await newLink("https://example.com/new-menu");
    expect(await destinationOf(link.slug)).toBe("https://example.com/new-menu");
    expect(await destinationOf("NoSuchSlug")).toBeNull();
  });

  it("answers analytics from the replica", async () => {
    const link = await newLink("https://example.com/analytics");
    await caughtUp();
    await database.pauseReplay();
    await writeScanBatch(randomUUID(), [iphoneScan(link.id, new Date())], [3]);
    const scansSeen = async () =>
      (await call("GET", `/api/analytics?link_id=${link.id}&group_by=day`, { token: user.token })).body.total.scans;
    expect(await scansSeen()).toBe(0);
    await caughtUp();
    expect(await scansSeen()).toBe(3);
  });

  it("reads the primary while the replica is too far behind, and says so in health", async () => {
    const link = await newLink("https://example.com/lagging-before");
    await caughtUp();
    await usingMaxLag(500);
    try {
      await database.pauseReplay();
      await onPrimary("UPDATE links SET destination = $1 WHERE id = $2", ["https://example.com/lagging-after", link.id]);
      await eventually(async () => expect(await checkReplica()).toMatchObject({ status: "behind" }));
      expect(await destinationOf(link.slug)).toBe("https://example.com/lagging-after");
      const health = await askHealth({ operator: true });
      expect(health.body).toMatchObject({ status: "degraded", replica: { status: "unavailable" } });
    } finally {
      await usingMaxLag(60_000);
    }
  });

  it("reads the primary while the replica is down, and the replica again once it is back", async () => {
    const link = await newLink("https://example.com/replica-down");
    await caughtUp();
    await database.stopReplica();
    expect(await checkReplica()).toMatchObject({ status: "unavailable" });
    expect(await destinationOf(link.slug)).toBe("https://example.com/replica-down");
    const analytics = await call("GET", `/api/analytics?link_id=${link.id}`, { token: user.token });
    expect(analytics.status).toBe(200);
    await database.startReplica();
    await eventually(async () => expect(await checkReplica()).toMatchObject({ status: "ok" }), 30_000);
  });

  it(
    "reads links from the replica while the primary is down, and the primary again once it is back",
    { timeout: 60_000 },
    async () => {
      const link = await newLink("https://example.com/primary-down");
      await caughtUp();
      // Past the window in which a link changed a moment ago is read from the primary (the lag bound and two monitor ticks).
      await usingMaxLag(1);
      await new Promise((resolve) => setTimeout(resolve, 2100));
      try {
        await database.stopPrimary();
        await eventually(async () => expect(await checkReplica()).toEqual({ status: "primary away" }), 10_000);
        expect(await destinationOf(link.slug)).toBe("https://example.com/primary-down");
        // An unknown code is never called unknown on the replica's word alone.
        await expect(destinationOf("NoSuchSlug")).rejects.toThrow();
        const health = await askHealth({ operator: true });
        expect(health.body.replica).toEqual({ status: "ok", reason: "the primary does not answer; reads go to the replica" });
      } finally {
        await database.startPrimary();
        await usingMaxLag(60_000);
      }
      await eventually(async () => expect(await checkReplica()).toMatchObject({ status: "ok" }), 30_000);
    },
  );
});
