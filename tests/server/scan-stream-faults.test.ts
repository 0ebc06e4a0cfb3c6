import { startScanStreamWriter } from "@/lib/analytics/scan-stream";
import { resetConfig } from "@/lib/config";
import { closeNats } from "@/lib/nats/connection";
import { startApp, type RunningApp } from "@/server/app-process";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newLinks } from "../support/api";
import { TEST_ZONE } from "../support/dns-server";
import { startFakeDnsServer, type FakeDnsServer } from "../support/fake-dns-server";
import { frontAppEnv } from "../support/faults";
import { rawRequest } from "../support/http";
import { visitContinuously } from "../support/load";
import { deleteStreams, eventually, rawScansOf } from "../support/scan-stream";
import { startTcpCut, type TcpCut } from "../support/tcp-cut";

/**
 * Faults on real processes, with scans through NATS JetStream (the machines run it on 4222): the
 * app's PostgreSQL cut off under load, and the app killed with SIGKILL under load.
 */
const LOCAL_NATS = "nats://127.0.0.1:4222";
const SHORT_HOST = "s.test.example";
const databaseUrl = process.env.DATABASE_URL!;
const streams: string[] = [];
let dns: FakeDnsServer;

function appEnv(stream: string, database: string): Record<string, string | undefined> {
  return frontAppEnv(database, dns.resolver, { NATS_URL: LOCAL_NATS, NATS_SCAN_STREAM: stream });
}

function newStream(): string {
  const stream = `TEST_FAULTS_${randomBytes(6).toString("hex")}`;
  streams.push(stream);
  return stream;
}

const scansOf = (slugs: string[]) => rawScansOf(databaseUrl, { slugs });

beforeAll(async () => {
  dns = await startFakeDnsServer({}, { a: [TEST_ZONE.publicAddress] });
});

afterAll(async () => {
  await dns.close();
  await deleteStreams(LOCAL_NATS, streams);
});

describe("PostgreSQL cut off for 30 s under continuous visits, scans through NATS", () => {
  let app: RunningApp;
  let cut: TcpCut;

  beforeAll(async () => {
    cut = await startTcpCut(Number(new URL(databaseUrl).port || 5432));
    const throughCut = new URL(databaseUrl);
    throughCut.port = String(cut.port);
    app = await startApp("front", appEnv(newStream(), throughCut.toString()));
  });

  afterAll(async () => {
    await app?.stop();
    await cut?.close();
  });

  it("answers every visit of its warm links, then records every scan exactly once when PostgreSQL is back", async () => {
    const slugs = await newLinks(20, "faults");
    // Warm: each link read once from PostgreSQL into the cache.
    for (const slug of slugs) expect((await rawRequest(app.url, `/${slug}`, { host: SHORT_HOST })).status).toBe(302);
    await eventually(async () => expect(await scansOf(slugs)).toBe(slugs.length), 15_000);

    await cut.cut();
    const load = visitContinuously(app.url, SHORT_HOST, slugs);
    await new Promise((resolve) => setTimeout(resolve, 30_000));
    await load.stop();
    expect(load.other).toBe(0);
    expect(load.redirects).toBeGreaterThan(500);
    expect(await scansOf(slugs)).toBe(slugs.length);

    await cut.restore();
    await eventually(async () => expect(await scansOf(slugs)).toBe(slugs.length + load.redirects), 60_000);
    // And stays there: no batch is written twice.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await scansOf(slugs)).toBe(slugs.length + load.redirects);
  }, 150_000);
});

describe("an instance killed with SIGKILL under load, scans through NATS", () => {
  it("loses at most the scans of its last flush (200 ms), and the stream's consumer writes the rest", async () => {
    const stream = newStream();
    const app = await startApp("front", appEnv(stream, databaseUrl));
    const slugs = await newLinks(10, "faults");
    const load = visitContinuously(app.url, SHORT_HOST, slugs, 4);
    const startedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 4000));
    process.kill(app.pid, "SIGKILL");
    const seconds = (Date.now() - startedAt) / 1000;
    await load.stop();
    await app.stop();

    // What the dead instance published waits in the stream: another instance's consumer writes it.
    process.env.NATS_URL = LOCAL_NATS;
    process.env.NATS_SCAN_STREAM = stream;
    resetConfig();
    const writer = startScanStreamWriter();
    try {
      let settled = -1;
      await eventually(async () => {
        const now = await scansOf(slugs);
        const unchanged = now === settled;
        settled = now;
        expect(unchanged).toBe(true);
      }, 30_000);
      const lost = load.redirects - settled;
      const perSecond = load.redirects / seconds;
      const lostMs = (lost / perSecond) * 1000;
      console.log(
        `kill -9 after ${load.redirects} redirects at ${perSecond.toFixed(0)}/s: ${settled} scans ` +
          `written, ${lost} lost (${lostMs.toFixed(0)} ms of scans)`,
      );
      expect(lost).toBeGreaterThanOrEqual(0);
      // 200 ms of scans wait for the next publish; the rest of the bound is a loaded machine's pause.
      expect(lostMs).toBeLessThan(1000);
    } finally {
      await writer.stop();
      await closeNats();
      delete process.env.NATS_URL;
      delete process.env.NATS_SCAN_STREAM;
      resetConfig();
    }
  }, 120_000);
});
