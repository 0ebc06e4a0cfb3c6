import type { ScanRow } from "@/lib/analytics/enrich";
import { recordScanRows, scanMessages, startScanStreamWriter, type ScanStreamWriter } from "@/lib/analytics/scan-stream";
import { writeScanBatch } from "@/lib/analytics/store/append";
import { resetConfig } from "@/lib/config";
import { disconnectDb } from "@/lib/db/client";
import { closeNats, natsConnection, natsState } from "@/lib/nats/connection";
import { freePort } from "@/server/app-process";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { call, newUser } from "../support/api";
import { askHealth, HEALTH_OPERATOR_TOKEN } from "../support/health";
import { deleteStreams, eventually, iphoneScan, rawScansOf } from "../support/scan-stream";
import { startTcpCut, type TcpCut } from "../support/tcp-cut";

/** The machines run NATS with JetStream here (and CI's do); each test gets streams of its own. */
const LOCAL_NATS = "nats://127.0.0.1:4222";
const databaseUrl = process.env.DATABASE_URL!;
const streams: string[] = [];
let linkIds: string[];
let writer: ScanStreamWriter | null = null;

async function useNats(url: string): Promise<string> {
  await writer?.stop();
  writer = null;
  await closeNats();
  const stream = `TEST_SCANS_${randomBytes(6).toString("hex")}`;
  streams.push(stream);
  process.env.NATS_URL = url;
  process.env.NATS_SCAN_STREAM = stream;
  resetConfig();
  return stream;
}

async function useDatabase(url: string): Promise<void> {
  await disconnectDb();
  process.env.DATABASE_URL = url;
  resetConfig();
}

function scans(count: number): ScanRow[] {
  return Array.from({ length: count }, (_, index) =>
    iphoneScan(linkIds[index % linkIds.length]!, new Date(Date.UTC(2026, 10, 20, 9) + index)),
  );
}

const scansWritten = () => rawScansOf(databaseUrl, { ids: linkIds });

/** Messages the stream holds: with a work queue, those not yet written and acknowledged. */
async function messagesIn(stream: string): Promise<number> {
  const manager = await jetstreamManager((await natsConnection())!);
  return (await manager.streams.info(stream)).state.messages;
}

beforeAll(async () => {
  process.env.OPERATOR_TOKEN = HEALTH_OPERATOR_TOKEN;
  resetConfig();
  const user = await newUser();
  linkIds = [];
  for (const name of ["menu", "poster", "box"]) {
    const response = await call("POST", "/api/links", {
      token: user.token,
      body: { destination: `https://example.com/${name}` },
    });
    expect(response.status).toBe(201);
    linkIds.push(response.body.id);
  }
});

afterEach(async () => {
  await writer?.stop();
  writer = null;
  await closeNats();
  await useDatabase(databaseUrl);
});

afterAll(async () => {
  await deleteStreams(LOCAL_NATS, streams);
  delete process.env.NATS_URL;
  delete process.env.NATS_SCAN_STREAM;
  delete process.env.OPERATOR_TOKEN;
  resetConfig();
});

describe("scans through NATS JetStream", () => {
  it("are published by the instance and written once by the shared consumer, which then acknowledges them", async () => {
    const stream = await useNats(LOCAL_NATS);
    const before = await scansWritten();
    await recordScanRows(randomUUID(), scans(1200), Array(1200).fill(1));
    // Three messages of at most 500 rows wait in the stream until a consumer writes them.
    expect(await messagesIn(stream)).toBe(3);
    expect(await scansWritten()).toBe(before);
    writer = startScanStreamWriter();
    await eventually(async () => expect(await scansWritten()).toBe(before + 1200));
    await eventually(async () => expect(await messagesIn(stream)).toBe(0));
  });

  it("counts a batch published twice (an answer lost on the way back) once", async () => {
    const stream = await useNats(LOCAL_NATS);
    const before = await scansWritten();
    const batchId = randomUUID();
    const rows = scans(40);
    const counts = rows.map((_, index) => 1 + (index % 3));
    await recordScanRows(batchId, rows, counts);
    await recordScanRows(batchId, rows, counts);
    expect(await messagesIn(stream)).toBe(1);
    writer = startScanStreamWriter();
    await eventually(async () => expect(await scansWritten()).toBe(before + counts.reduce((a, b) => a + b)));
  });

  it("counts a message once when an instance wrote it and died before acknowledging it", async () => {
    const stream = await useNats(LOCAL_NATS);
    const before = await scansWritten();
    const batchId = randomUUID();
    const rows = scans(30);
    await recordScanRows(batchId, rows, Array(30).fill(1));
    // The first instance's commit, then its end: the message is still in the stream, unacknowledged.
    const [message] = scanMessages(batchId, rows, Array(30).fill(1));
    await writeScanBatch(message!.id, message!.rows, message!.counts);
    writer = startScanStreamWriter();
    await eventually(async () => expect(await messagesIn(stream)).toBe(0));
    expect(await scansWritten()).toBe(before + 30);
  });

  it("keeps every scan in the stream while PostgreSQL is cut off, and writes each once when it is back", async () => {
    const stream = await useNats(LOCAL_NATS);
    const cut: TcpCut = await startTcpCut(Number(new URL(databaseUrl).port || 5432));
    try {
      const throughCut = new URL(databaseUrl);
      throughCut.port = String(cut.port);
      await useDatabase(throughCut.toString());
      const before = await scansWritten();
      writer = startScanStreamWriter();
      await cut.cut();
      let sent = 0;
      for (let batch = 0; batch < 10; batch++) {
        await recordScanRows(randomUUID(), scans(300), Array(300).fill(1));
        sent += 300;
      }
      // The consumer tries, fails and leaves them: nothing is lost and nothing written meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(await messagesIn(stream)).toBeGreaterThan(0);
      expect(await scansWritten()).toBe(before);
      await cut.restore();
      await eventually(async () => expect(await scansWritten()).toBe(before + sent), 30_000);
      await eventually(async () => expect(await messagesIn(stream)).toBe(0));
    } finally {
      await cut.close();
    }
  });
});

describe("an instance whose NATS server goes away", () => {
  let server: ChildProcess | null = null;
  let storeDir: string;
  let port: number;

  async function startNatsServer(): Promise<void> {
    server = spawn("nats-server", ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", storeDir], { stdio: "ignore" });
    await eventually(async () => {
      const probe = await connect({ servers: `nats://127.0.0.1:${port}`, timeout: 500 });
      await probe.close();
    });
  }

  async function killNatsServer(): Promise<void> {
    const exited = new Promise((resolve) => server!.once("exit", resolve));
    server!.kill("SIGKILL");
    await exited;
    server = null;
  }

  beforeAll(async () => {
    storeDir = await mkdtemp(path.join(tmpdir(), "permalink-nats-"));
    port = await freePort();
    await startNatsServer();
  });

  afterAll(async () => {
    if (server) await killNatsServer();
    await rm(storeDir, { recursive: true, force: true });
  });

  it("writes its scans to PostgreSQL itself, says so in health, and goes back to the stream when NATS returns", async () => {
    await useNats(`nats://127.0.0.1:${port}`);
    const stream = process.env.NATS_SCAN_STREAM!;
    writer = startScanStreamWriter();
    const before = await scansWritten();
    await recordScanRows(randomUUID(), scans(50), Array(50).fill(1));
    await eventually(async () => expect(await scansWritten()).toBe(before + 50));

    await killNatsServer();
    await eventually(async () => expect(natsState()).toMatchObject({ status: "unavailable" }));
    const health = await askHealth({ operator: true });
    expect(health.body).toMatchObject({ status: "degraded", nats: { status: "unavailable" } });
    await recordScanRows(randomUUID(), scans(70), Array(70).fill(1));
    expect(await scansWritten()).toBe(before + 120);

    await startNatsServer();
    await eventually(async () => expect(natsState()).toEqual({ status: "ok" }));
    await recordScanRows(randomUUID(), scans(30), Array(30).fill(1));
    await eventually(async () => expect(await scansWritten()).toBe(before + 150));
    expect(await messagesIn(stream)).toBe(0);
  });
});
