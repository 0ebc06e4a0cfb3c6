import { resetConfig } from "@/lib/config";
import { disconnectDb } from "@/lib/db/client";
import { forgetHealthCheck } from "@/lib/health/service";
import { log } from "@/lib/log";
import { forgetSharedStoreClients } from "@/lib/shared-store/clients";
import { forgetSharedStoreFailures } from "@/lib/shared-store/status";
import { freePort } from "@/server/app-process";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { call } from "../support/api";
import { askHealth, HEALTH_OPERATOR_TOKEN } from "../support/health";
import { LOCAL_REDIS_URL } from "../support/redis";
import { type UpstashStandIn, startUpstashStandIn } from "../support/upstash-stand-in";

let upstash: UpstashStandIn;
const workingDatabase = process.env.DATABASE_URL!;

const operatorHealth = ({ reusing = false } = {}) => askHealth({ operator: true, reusing });

function configure(settings: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(settings)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetConfig();
  forgetSharedStoreClients();
  forgetHealthCheck();
}

beforeAll(async () => {
  upstash = await startUpstashStandIn();
  configure({ OPERATOR_TOKEN: HEALTH_OPERATOR_TOKEN });
});

afterEach(async () => {
  vi.restoreAllMocks();
  configure({ UPSTASH_REDIS_REST_URL: undefined, UPSTASH_REDIS_REST_TOKEN: undefined, REDIS_URL: undefined });
  forgetSharedStoreFailures();
  await disconnectDb();
  process.env.DATABASE_URL = workingDatabase;
  resetConfig();
});

afterAll(async () => {
  configure({ OPERATOR_TOKEN: undefined });
  await upstash.close();
});

describe("GET /api/health", () => {
  it("says what answers and what is not configured", async () => {
    const health = await operatorHealth();

    expect(health.status).toBe(200);
    expect(health.body).toEqual({
      status: "ok",
      database: { status: "ok" },
      replica: { status: "not configured" },
      redis: { status: "not configured" },
      nats: { status: "not configured" },
    });
    expect(health.headers.get("cache-control")).toBe("no-store");
  });

  it("asks Upstash over its REST API, and Redis over TCP", async () => {
    configure({ UPSTASH_REDIS_REST_URL: upstash.url, UPSTASH_REDIS_REST_TOKEN: upstash.token });
    const before = upstash.commands.length;
    expect((await operatorHealth()).body).toMatchObject({ status: "ok", redis: { status: "ok", store: "upstash" } });
    expect(upstash.commands.slice(before)).toEqual(["ping"]);

    configure({ UPSTASH_REDIS_REST_URL: undefined, UPSTASH_REDIS_REST_TOKEN: undefined, REDIS_URL: LOCAL_REDIS_URL });
    expect((await operatorHealth()).body).toMatchObject({ status: "ok", redis: { status: "ok", store: "redis" } });
  });

  it("answers 200 degraded with the reason when the shared store fails, logging it once per failure spell, never the token", async () => {
    const warn = vi.spyOn(log(), "warn").mockImplementation(() => {});
    configure({ UPSTASH_REDIS_REST_URL: upstash.url, UPSTASH_REDIS_REST_TOKEN: "a-token-that-was-rotated-away" });

    const answers = [await operatorHealth(), await operatorHealth()];

    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        status: "degraded",
        database: { status: "ok" },
        redis: { status: "unavailable", store: "upstash", reason: "WRONGPASS invalid or missing auth token" },
      });
    }
    expect(warn).toHaveBeenCalledTimes(1);
    expect(JSON.stringify([answers.map((answer) => answer.body), warn.mock.calls])).not.toContain("rotated-away");
  });

  it("answers 503 when the database does not answer, naming no address", async () => {
    await disconnectDb();
    process.env.DATABASE_URL = `postgresql://postgres:db-password@127.0.0.1:${await freePort()}/gone`;
    resetConfig();

    const health = await operatorHealth();

    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({
      error: "This instance cannot serve: its database does not answer.",
      status: "unavailable",
      database: { status: "unavailable", reason: expect.any(String) },
    });
    expect(JSON.stringify(health.body)).not.toMatch(/db-password|127\.0\.0\.1/);
  });

  it("tells anyone the status alone, and only the operator each component and why it fails", async () => {
    configure({ UPSTASH_REDIS_REST_URL: upstash.url, UPSTASH_REDIS_REST_TOKEN: "a-token-that-was-rotated-away" });
    vi.spyOn(log(), "warn").mockImplementation(() => {});
    for (const token of [undefined, `${HEALTH_OPERATOR_TOKEN}-wrong`, "pk_live_not-a-key-of-this-deployment"]) {
      const health = await call("GET", "/api/health", { token });
      expect(health.status, String(token)).toBe(200);
      expect(health.body, String(token)).toEqual({ status: "degraded" });
    }
    expect((await operatorHealth({ reusing: true })).body).toMatchObject({
      status: "degraded",
      redis: { status: "unavailable", reason: "WRONGPASS invalid or missing auth token" },
    });

    await disconnectDb();
    process.env.DATABASE_URL = `postgresql://postgres:db-password@127.0.0.1:${await freePort()}/gone`;
    resetConfig();
    forgetHealthCheck();
    const unavailable = await call("GET", "/api/health");
    expect(unavailable.status).toBe(503);
    expect(unavailable.body).toEqual({
      error: "This instance cannot serve: its database does not answer.",
      status: "unavailable",
    });
    expect((await operatorHealth({ reusing: true })).body).toMatchObject({ database: { status: "unavailable" } });
  });

  it("checks at most once a second, whoever asks and however many at once", async () => {
    configure({ UPSTASH_REDIS_REST_URL: upstash.url, UPSTASH_REDIS_REST_TOKEN: upstash.token });
    const before = upstash.commands.length;
    const pings = () => upstash.commands.slice(before).filter((command) => command === "ping").length;

    const first = await Promise.all(
      Array.from({ length: 300 }, (_, index) => (index % 3 ? call("GET", "/api/health") : operatorHealth({ reusing: true }))),
    );
    expect(first.every((answer) => answer.status === 200)).toBe(true);
    expect(pings()).toBe(1);
    for (let index = 0; index < 50; index++) await call("GET", "/api/health");
    expect(pings()).toBe(1);

    await new Promise((resolve) => setTimeout(resolve, 1100));
    await call("GET", "/api/health");
    expect(pings()).toBe(2);
  });
});
