import { startScanStreamWriter } from "@/lib/analytics/scan-stream";
import { parkScansWhenBehind, scanBuffer } from "@/lib/analytics/scans";
import { parkedScans, parkScanBatch } from "@/lib/analytics/store/append";
import { resetConfig } from "@/lib/config";
import { closeNats } from "@/lib/nats/connection";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, expect, it } from "vitest";
import { call, newUser } from "../support/api";
import { eventually, iphoneScan } from "../support/scan-stream";

const stream = `TEST_SCANS_${randomBytes(6).toString("hex")}`;

afterAll(async () => {
  await closeNats();
  const connection = await connect({ servers: "nats://127.0.0.1:4222" });
  await (await jetstreamManager(connection)).streams.delete(stream).catch(() => undefined);
  await connection.close();
});

it("writes the scans parked before NATS was configured, and parks nothing new while the stream takes them", async () => {
  const user = await newUser();
  const link = (await call("POST", "/api/links", { token: user.token, body: { destination: "https://example.com/n" } })).body.id;
  // Parked while the deployment ran without NATS; then NATS_URL is set and the service restarted.
  await parkScanBatch(randomUUID(), [iphoneScan(link, new Date())], [1]);
  process.env.NATS_URL = "nats://127.0.0.1:4222";
  process.env.NATS_SCAN_STREAM = stream;
  resetConfig();
  const writer = startScanStreamWriter();
  parkScansWhenBehind();
  try {
    scanBuffer().record({
      linkId: link,
      host: "s.test.example",
      occurredAt: Date.now(),
      method: "GET",
      viaQr: false,
      servedRule: null,
      userAgent: "Mozilla/5.0",
      referrer: null,
      edgeCountry: null,
      forwardedFor: null,
      peerAddress: "198.51.100.7",
      realIp: null,
    });
    await scanBuffer().flush();
    await eventually(async () => expect(await parkedScans()).toBe(0), 40_000);
    expect(scanBuffer().stats().parked).toBe(0);
  } finally {
    await writer.stop();
  }
}, 60_000);
