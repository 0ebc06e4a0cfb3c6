import type { ScanRow } from "@/lib/analytics/enrich";
import { MAX_SCANS_PER_ROW, scanMessageText } from "@/lib/analytics/scan-message";
import {
  deadLetterStream,
  recordScanRows,
  scanStreamTally,
  startScanStreamWriter,
  type ScanStreamWriter,
} from "@/lib/analytics/scan-stream";
import { resetConfig } from "@/lib/config";
import { db, disconnectDb } from "@/lib/db/client";
import { closeNats, natsConnection } from "@/lib/nats/connection";
import { freePort } from "@/server/app-process";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { report } from "../support/analytics";
import { call, newUser, type TestUser } from "../support/api";
import { deleteStreams, eventually, iphoneScan, rawScansOf } from "../support/scan-stream";

/**
 * Anyone who can publish to NATS can put a message on the scan subject. The writers count only
 * what an instance of this service could have written: every message is validated, a row is
 * written only for its link's own host, and a message that cannot be written is given up on after
 * a bounded number of deliveries (kept in a dead-letter stream), never offered forever.
 */
const LOCAL_NATS = "nats://127.0.0.1:4222";
const databaseUrl = process.env.DATABASE_URL!;
const streams: string[] = [];
let user: TestUser;
let linkId: string;
let writer: ScanStreamWriter | null = null;

function useNats(settings: Record<string, string> = {}): string {
  const stream = `TEST_SCANS_${randomBytes(6).toString("hex")}`;
  streams.push(stream, `${stream}_DEAD`);
  Object.assign(process.env, { NATS_URL: LOCAL_NATS, NATS_SCAN_STREAM: stream, ...settings });
  resetConfig();
  return stream;
}

async function useDatabase(url: string): Promise<void> {
  await disconnectDb();
  process.env.DATABASE_URL = url;
  resetConfig();
}

async function messagesIn(stream: string): Promise<number> {
  const manager = await jetstreamManager((await natsConnection())!);
  return (await manager.streams.info(stream)).state.messages;
}

async function publishRaw(stream: string, bodies: string[]): Promise<void> {
  const client = jetstream((await natsConnection())!);
  for (const body of bodies) await client.publish(`permalink.scans.${stream}`, new TextEncoder().encode(body));
}

/** A scan message as an instance writes it, with `changes` over its one row and `count` scans. */
function message(changes: Record<string, unknown>, count = 1): string {
  const row: ScanRow = iphoneScan(linkId, new Date());
  const text = JSON.parse(scanMessageText({ id: randomUUID(), rows: [row], counts: [count] }));
  text.rows[0] = { ...text.rows[0], ...changes };
  return JSON.stringify(text);
}

/** The link's scans in the raw table and in its report (rollups). */
async function analyticsOfLink(): Promise<{ raw: number; reported: number }> {
  const body = await report(user, { link_id: linkId });
  return { raw: await rawScansOf(databaseUrl, { ids: [linkId] }), reported: body.total.scans };
}

beforeAll(async () => {
  user = await newUser("forgery");
  const created = await call("POST", "/api/links", { token: user.token, body: { destination: "https://example.com/forged" } });
  expect(created.status).toBe(201);
  linkId = created.body.id;
});

afterEach(async () => {
  await writer?.stop();
  writer = null;
  await closeNats();
  await useDatabase(databaseUrl);
  delete process.env.NATS_SCAN_MAX_DELIVERIES;
  delete process.env.WEBHOOK_PRIVATE_NETWORKS;
  resetConfig();
});

afterAll(async () => {
  await deleteStreams(LOCAL_NATS, streams);
  delete process.env.NATS_URL;
  delete process.env.NATS_SCAN_STREAM;
  resetConfig();
});

describe("messages on the scan subject that no instance wrote", () => {
  it("count nothing, are taken out of the stream at once, and leave the genuine scans beside them counted", async () => {
    const stream = useNats();
    const before = await analyticsOfLink();
    // A genuine batch first (it also creates the stream), then the forged and malformed ones.
    await recordScanRows(randomUUID(), [iphoneScan(linkId, new Date())], [1]);
    const invalid = [
      message({ country: "KP" }, 500_000_000),
      message({}, MAX_SCANS_PER_ROW + 1),
      message({ browser: "=cmd|' /C calc'!A0" }),
      message({ os: "Windows<script>" }),
      message({ device: "toaster" }),
      message({ country: "kp" }),
      message({ occurredAt: "x" }),
      message({ occurredAt: Date.UTC(2100, 0, 1) }),
      message({ occurredAt: Date.UTC(1999, 0, 1) }),
      message({ userAgent: "x".repeat(10_000) }),
      message({ visitor: "not-a-hash" }),
      message({ linkId: "'; DROP TABLE links; --" }),
      message({ servedRule: 10_000 }),
      message({ referrerHost: '=HYPERLINK("https://evil.example")' }),
      JSON.stringify({ id: randomUUID(), rows: [JSON.parse(message({})).rows[0]], counts: [1, 1] }),
      JSON.stringify({ id: "x".repeat(10_000), rows: [], counts: [] }),
      "not json at all",
      "{}",
    ];
    // Well formed, but for a link that does not exist, and for this link on a host it is not served on.
    const misdirected = [message({ linkId: "lnk_00000000000000000000" }), message({ host: "evil.example" })];
    const refusedBefore = scanStreamTally().refused;
    await publishRaw(stream, [...invalid, ...misdirected]);
    expect(await messagesIn(stream)).toBe(1 + invalid.length + misdirected.length);

    writer = startScanStreamWriter();
    await eventually(async () => expect(await messagesIn(stream)).toBe(0));
    expect(scanStreamTally().refused - refusedBefore).toBe(invalid.length);
    expect(await analyticsOfLink()).toEqual({ raw: before.raw + 1, reported: before.reported + 1 });
    const countries = await report(user, { link_id: linkId, group_by: "country" });
    expect(countries.data.map((row: { key: string }) => row.key)).toEqual(["AU"]);
  });

  it("make no link.scanned message: only the rows the batch wrote are told to the links' webhooks", async () => {
    const stream = useNats({ WEBHOOK_PRIVATE_NETWORKS: "127.0.0.0/8" });
    // Another workspace listens to its link's scans: a forged row naming that link must not reach it.
    const victim = await newUser("forgery-victim");
    const victimLink = await call("POST", "/api/links", {
      token: victim.token,
      body: { destination: "https://example.com/victim" },
    });
    expect(victimLink.status).toBe(201);
    const hooks: Record<string, string> = {};
    for (const owner of [user, victim]) {
      const hook = await call("POST", "/api/webhooks", {
        token: owner.token,
        body: { url: "http://127.0.0.1:42001/hooks", events: ["link.scanned"] },
      });
      expect(hook.status, hook.text).toBe(201);
      hooks[owner.token] = hook.body.id;
    }
    const told = async (owner: TestUser) => {
      const deliveries = await db().webhookDelivery.findMany({ where: { webhookId: hooks[owner.token] } });
      return deliveries.flatMap((delivery) => JSON.parse(delivery.body).data.scans as { count: number }[]);
    };
    const before = await analyticsOfLink();

    // One batch: a genuine scan, the same link named on a host it is not served on, and the other
    // workspace's link on that host; then the same batch delivered again.
    const genuine = iphoneScan(linkId, new Date());
    const rows = [
      genuine,
      { ...genuine, host: "evil.example" },
      { ...iphoneScan(victimLink.body.id, new Date()), host: "evil.example" },
    ];
    const batchId = randomUUID();
    await recordScanRows(batchId, rows, [1, 7, 9]);
    await publishRaw(stream, [scanMessageText({ id: `${batchId}.0`, rows, counts: [1, 7, 9] })]);
    expect(await messagesIn(stream)).toBe(2);
    writer = startScanStreamWriter();
    await eventually(async () => expect(await messagesIn(stream)).toBe(0));

    expect(await analyticsOfLink()).toEqual({ raw: before.raw + 1, reported: before.reported + 1 });
    expect((await told(user)).map((scan) => scan.count)).toEqual([1]);
    expect(await told(victim)).toEqual([]);
  });

  it("are offered a bounded number of times when they cannot be written, then kept in the dead-letter stream", async () => {
    const stream = useNats({ NATS_SCAN_MAX_DELIVERIES: "3" });
    const before = await analyticsOfLink();
    // Published while the database answers nowhere: every write fails.
    await useDatabase(`postgresql://postgres@127.0.0.1:${await freePort()}/nowhere`);
    await recordScanRows(randomUUID(), [iphoneScan(linkId, new Date())], [1]);
    expect(await messagesIn(stream)).toBe(1);
    const deadLetteredBefore = scanStreamTally().deadLettered;

    writer = startScanStreamWriter();
    await eventually(async () => expect(await messagesIn(stream)).toBe(0), 20_000);
    expect(await messagesIn(deadLetterStream())).toBe(1);
    expect(scanStreamTally().deadLettered - deadLetteredBefore).toBe(1);
    await useDatabase(databaseUrl);
    expect(await analyticsOfLink()).toEqual(before);
  });
});
