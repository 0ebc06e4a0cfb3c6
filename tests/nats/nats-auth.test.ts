import { recordScanRows, startScanStreamWriter } from "@/lib/analytics/scan-stream";
import { resetConfig } from "@/lib/config";
import { closeNats, natsConnection, natsState } from "@/lib/nats/connection";
import { waitForPort } from "@/scripts/cluster/nats";
import { freePort } from "@/server/app-process";
import { stopChild } from "@/server/child-process";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { call, newUser } from "../support/api";
import { askHealth, HEALTH_OPERATOR_TOKEN } from "../support/health";
import { eventually, iphoneScan, rawScansOf } from "../support/scan-stream";

/**
 * A NATS server of the test's own that admits only a user with a password (as `npm run cluster`
 * starts its nodes): the instance connects with the credentials, from NATS_URL or from their own
 * settings, and never repeats the password.
 */
const USER = "permalink";
const PASSWORD = `s@${randomBytes(12).toString("hex")}`;
const NATS_SETTINGS = ["NATS_URL", "NATS_USER", "NATS_PASSWORD", "NATS_SCAN_STREAM"];
let dir: string;
let port: number;
let server: ChildProcess;
let linkId: string;

async function useNats(settings: Record<string, string>): Promise<void> {
  await closeNats();
  for (const name of NATS_SETTINGS) delete process.env[name];
  Object.assign(process.env, { NATS_SCAN_STREAM: `TEST_SCANS_${randomBytes(6).toString("hex")}`, ...settings });
  resetConfig();
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "permalink-nats-auth-"));
  port = await freePort();
  const configFile = path.join(dir, "nats.conf");
  await writeFile(
    configFile,
    [
      `listen: 127.0.0.1:${port}`,
      `jetstream { store_dir: "${path.join(dir, "store")}" }`,
      `authorization { users = [ { user: "${USER}", password: "${PASSWORD}" } ] }`,
      "",
    ].join("\n"),
  );
  server = spawn("/usr/sbin/nats-server", ["-c", configFile], { stdio: "ignore" });
  await waitForPort(port, server);
  process.env.OPERATOR_TOKEN = HEALTH_OPERATOR_TOKEN;
  resetConfig();
  const user = await newUser("nats-auth");
  linkId = (await call("POST", "/api/links", { token: user.token, body: { destination: "https://example.com/auth" } })).body.id;
});

afterEach(async () => {
  await closeNats();
});

afterAll(async () => {
  if (server) await stopChild(server);
  if (dir) await rm(dir, { recursive: true, force: true });
  for (const name of NATS_SETTINGS) delete process.env[name];
  delete process.env.OPERATOR_TOKEN;
  resetConfig();
});

describe("NATS with a user and password", () => {
  it("is connected to with the credentials in NATS_URL, health says ok, and scans go through its stream", async () => {
    await useNats({ NATS_URL: `nats://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}` });
    expect(await natsConnection()).not.toBeNull();
    expect(natsState()).toEqual({ status: "ok" });
    expect((await askHealth({ operator: true })).body).toMatchObject({ status: "ok" });

    const writer = startScanStreamWriter();
    try {
      const before = await rawScansOf(process.env.DATABASE_URL!, { ids: [linkId] });
      await recordScanRows(randomUUID(), [iphoneScan(linkId, new Date())], [1]);
      await eventually(async () => expect(await rawScansOf(process.env.DATABASE_URL!, { ids: [linkId] })).toBe(before + 1));
    } finally {
      await writer.stop();
    }
  });

  it("is connected to with NATS_USER and NATS_PASSWORD", async () => {
    await useNats({ NATS_URL: `nats://127.0.0.1:${port}`, NATS_USER: USER, NATS_PASSWORD: PASSWORD });
    expect(await natsConnection()).not.toBeNull();
    expect((await askHealth({ operator: true })).body).toMatchObject({ status: "ok" });
  });

  it("says why it is refused with a wrong password, without repeating it", async () => {
    const wrong = `${PASSWORD}-wrong`;
    await useNats({ NATS_URL: `nats://${USER}:${encodeURIComponent(wrong)}@127.0.0.1:${port}` });
    await natsConnection();
    await eventually(async () =>
      expect(natsState()).toMatchObject({ status: "unavailable", reason: expect.stringMatching(/auth/i) }),
    );
    expect(JSON.stringify(natsState())).not.toContain(PASSWORD);
    expect((await askHealth({ operator: true })).body).toMatchObject({ status: "degraded", nats: { status: "unavailable" } });
  });
});
