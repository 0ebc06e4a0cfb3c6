import { readMigrations } from "@/lib/db/migrate";
import { startApp, type RunningApp } from "@/server/app-process";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newLinks } from "../support/api";
import { adminQuery, withDatabase } from "../support/database";
import { TEST_ZONE } from "../support/dns-server";
import { startFakeDnsServer, type FakeDnsServer } from "../support/fake-dns-server";
import { frontAppEnv, isAlive } from "../support/faults";
import { rawRequest } from "../support/http";
import { visitContinuously } from "../support/load";
import { eventually, rawScansOf } from "../support/scan-stream";
import { startTcpCut, type TcpCut } from "../support/tcp-cut";

/**
 * PostgreSQL lost while the scan writer is in the middle of a batch, under continuous visits and
 * without NATS (the scans go straight to PostgreSQL): the connection the batch holds breaks under
 * it. The process must live on, answer every visit of the links it has seen, and write every scan
 * once PostgreSQL is back.
 */
const SHORT_HOST = "s.test.example";
const databaseUrl = process.env.DATABASE_URL!;
const databaseName = new URL(databaseUrl).pathname.slice(1);
const FAULTS = 3;
let dns: FakeDnsServer;
let observer: pg.Client;

beforeAll(async () => {
  dns = await startFakeDnsServer({}, { a: [TEST_ZONE.publicAddress] });
  observer = new pg.Client({ connectionString: databaseUrl });
  await observer.connect();
});

afterAll(async () => {
  await observer?.end();
  await dns?.close();
});

const OPERATOR_TOKEN = "operator-token-for-the-database-faults-0123456789";

function appEnv(database: string): Record<string, string | undefined> {
  return frontAppEnv(database, dns.resolver, { OPERATOR_TOKEN });
}

/** Resolves once the app's scan writer has a batch statement running in PostgreSQL; its backend's pid. */
async function batchBeingWritten(): Promise<number> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const { rows } = await observer.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
        WHERE datname = $1 AND state = 'active' AND query LIKE '%INSERT INTO scan_batches%' AND pid <> pg_backend_pid()`,
      [databaseName],
    );
    if (rows[0]) return rows[0].pid;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error("No scan batch was written within 30 s of continuous visits.");
}

/** Scan batches committed so far (each write claims its batch's id in scan_batches). */
async function batchesWritten(): Promise<number> {
  const { rows } = await observer.query<{ written: string }>("SELECT count(*) AS written FROM scan_batches");
  return Number(rows[0]!.written);
}

/**
 * How long after the fault's end the scan writer commits a batch again: nothing commits while the
 * database is away, so the first batch past the count at the end is the writer back at work.
 */
async function writerRecoveryMs(): Promise<number> {
  const ended = Date.now();
  const atEnd = await batchesWritten();
  while (Date.now() - ended < 30_000) {
    if ((await batchesWritten()) > atEnd) return Date.now() - ended;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Infinity;
}

/** The writer is back within this of a fault's end (issue 38's target). */
const RECOVERY_TARGET_MS = 5000;

async function warm(app: RunningApp, slugs: string[]): Promise<void> {
  for (const slug of slugs) expect((await rawRequest(app.url, `/${slug}`, { host: SHORT_HOST })).status).toBe(302);
  await eventually(async () => expect(await rawScansOf(databaseUrl, { slugs })).toBe(slugs.length));
}

/**
 * Visits continue through each fault; the writer commits again within RECOVERY_TARGET_MS of each
 * fault's end; afterwards every scan is written exactly once.
 */
async function underLoad(label: string, app: RunningApp, slugs: string[], fault: () => Promise<void>): Promise<void> {
  const recoveries: number[] = [];
  const before = await rawScansOf(databaseUrl, { slugs });
  // At the pace the outages were measured at (2–4.5k visits a second): the buffer's 100,000 scans
  // hold half a minute of it. Unpaced, an idle machine makes three times that, and a fault that
  // outlasts the buffer drops the oldest scans by design (docs/analytics.md).
  const load = visitContinuously(app.url, SHORT_HOST, slugs, 4, 3000);
  for (let round = 0; round < FAULTS; round++) {
    await fault();
    const recovery = await writerRecoveryMs();
    recoveries.push(recovery);
    expect(recovery, `the writer wrote again ${recovery} ms after fault ${round + 1} ended`).toBeLessThanOrEqual(
      RECOVERY_TARGET_MS,
    );
    // Time to write the backlog before the next fault: the buffer holds a bounded number of scans.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(isAlive(app.pid), `the server died after fault ${round + 1}:\n${app.output()}`).toBe(true);
  }
  await load.stop();
  console.info(`${label}: the writer wrote again ${recoveries.join(", ")} ms after each fault's end; ${load.redirects} visits`);
  expect(isAlive(app.pid), app.output()).toBe(true);
  expect(load.other).toBe(0);
  expect(load.redirects).toBeGreaterThan(500);
  await eventually(
    async () => expect(await rawScansOf(databaseUrl, { slugs }), app.output().slice(-4000)).toBe(before + load.redirects),
    60_000,
  );
  // And stays there: no batch is written twice.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  expect(await rawScansOf(databaseUrl, { slugs })).toBe(before + load.redirects);
  expect((await fetch(`${app.url}/api/health`)).status).toBe(200);
}

describe("PostgreSQL lost while a scan batch is being written, under continuous visits", () => {
  let slugs: string[];
  let cut: TcpCut;
  let app: RunningApp;

  beforeAll(async () => {
    slugs = await newLinks(300, "db-faults");
    cut = await startTcpCut(Number(new URL(databaseUrl).port || 5432));
    const throughCut = new URL(databaseUrl);
    throughCut.port = String(cut.port);
    app = await startApp("front", appEnv(throughCut.toString()));
    await warm(app, slugs);
  }, 120_000);

  afterAll(async () => {
    await app?.stop();
    await cut?.close();
  });

  it("lives through the network cut off for 3 s, and writes every scan once it is back", async () => {
    await underLoad("a 3 s cut", app, slugs, async () => {
      await batchBeingWritten();
      await cut.cut();
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await cut.restore();
    });
  }, 150_000);

  it("lives through a 3 s cut whose packets vanish, giving up the dead connections within seconds", async () => {
    // Nothing tells either end: the connections open at the cut never answer again, and only the
    // writer's watchdog, the lookups' deadline and PostgreSQL's idle timeout end them.
    await underLoad("a silent 3 s cut", app, slugs, async () => {
      await batchBeingWritten();
      await cut.cut({ silent: true });
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await cut.restore();
    });
  }, 150_000);

  it("lives through PostgreSQL hanging for 3 s (every byte held, then delivered), and writes every scan once", async () => {
    // The writer cannot tell a hang from a silent cut: it gives the batch's connection up, and the
    // held batch may yet commit when the bytes arrive; its retry, under the same id, then writes nothing.
    await underLoad("a 3 s hang", app, slugs, async () => {
      await batchBeingWritten();
      cut.hang();
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await cut.restore();
    });
  }, 150_000);

  it("lives through PostgreSQL ending its connections (pg_terminate_backend), and writes every scan", async () => {
    await underLoad("pg_terminate_backend", app, slugs, async () => {
      await batchBeingWritten();
      await observer.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
        [databaseName],
      );
    });
  }, 150_000);
});

describe("started while PostgreSQL does not answer", () => {
  let cut: TcpCut;
  let app: RunningApp;
  let freshDatabase: string;

  beforeAll(async () => {
    const { serverUrl, prefix } = inject("testDatabase");
    const name = `${prefix}_unmigrated`;
    await adminQuery(serverUrl, `CREATE DATABASE "${name}"`);
    freshDatabase = withDatabase(serverUrl, name);
    cut = await startTcpCut(Number(new URL(serverUrl).port || 5432));
    await cut.cut();
  });

  afterAll(async () => {
    await app?.stop();
    await cut?.close();
  });

  it("serves, says in health that it waits for the database, and migrates as soon as the database answers", async () => {
    const throughCut = new URL(freshDatabase);
    throughCut.port = String(cut.port);
    app = await startApp("front", appEnv(throughCut.toString()));
    expect(app.output()).toContain("PostgreSQL does not answer");

    // The front door answers health itself: the status to anyone, the reason to the operator only.
    const waiting = await fetch(`${app.url}/api/health`);
    expect(waiting.status).toBe(503);
    expect(await waiting.json()).toEqual({
      error: "This instance cannot serve: its database does not answer.",
      status: "unavailable",
    });
    const told = await fetch(`${app.url}/api/health`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
    expect(told.status).toBe(503);
    expect((await told.json()).database.reason).toMatch(/^migrations not applied yet/);
    // A code it has never seen cannot be looked up: "try again", never "not found".
    const visit = await rawRequest(app.url, "/abc2345", { host: SHORT_HOST });
    expect(visit.status).toBe(503);
    expect(visit.headers["retry-after"]).toBeDefined();

    await cut.restore();
    await eventually(async () => expect((await fetch(`${app.url}/api/health`)).status).toBe(200), 20_000);
    const fresh = new pg.Client({ connectionString: freshDatabase });
    await fresh.connect();
    try {
      const { rows } = await fresh.query("SELECT 1 FROM _prisma_migrations WHERE finished_at IS NOT NULL");
      expect(rows.length).toBe((await readMigrations()).length);
    } finally {
      await fresh.end();
    }
    expect(isAlive(app.pid)).toBe(true);
    expect(app.output()).toContain("PostgreSQL answers again: migrations are current");
  }, 120_000);
});
