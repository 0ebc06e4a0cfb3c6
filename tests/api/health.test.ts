import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { resetConfig } from "@/lib/config";
import { disconnectDb } from "@/lib/db/client";
import { log } from "@/lib/log";
import { forgetSharedStoreClients } from "@/lib/shared-store/clients";
import { forgetSharedStoreFailures } from "@/lib/shared-store/status";
import { freePort } from "@/scripts/app-process";
import { call } from "../support/api";
import { LOCAL_REDIS_URL } from "../support/redis";
import { type UpstashStandIn, startUpstashStandIn } from "../support/upstash-stand-in";

let upstash: UpstashStandIn;
const workingDatabase = process.env.DATABASE_URL!;

function configure(settings: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(settings)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetConfig();
  forgetSharedStoreClients();
}

beforeAll(async () => {
  upstash = await startUpstashStandIn();
});

afterEach(async () => {
  vi.restoreAllMocks();
  configure({ UPSTASH_REDIS_REST_URL: undefined, UPSTASH_REDIS_REST_TOKEN: undefined, REDIS_URL: undefined });
  forgetSharedStoreFailures();
  await disconnectDb();
  process.env.DATABASE_URL = workingDatabase;
  resetConfig();
});

afterAll(() => upstash.close());

describe("GET /api/health", () => {
  it("says what answers and what is not configured", async () => {
    const health = await call("GET", "/api/health");

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
    expect((await call("GET", "/api/health")).body).toMatchObject({ status: "ok", redis: { status: "ok", store: "upstash" } });
    expect(upstash.commands.slice(before)).toEqual(["ping"]);

    configure({ UPSTASH_REDIS_REST_URL: undefined, UPSTASH_REDIS_REST_TOKEN: undefined, REDIS_URL: LOCAL_REDIS_URL });
    expect((await call("GET", "/api/health")).body).toMatchObject({ status: "ok", redis: { status: "ok", store: "redis" } });
  });

  it("answers 200 degraded with the reason when the shared store fails, logging it once per failure spell, never the token", async () => {
    const warn = vi.spyOn(log(), "warn").mockImplementation(() => {});
    configure({ UPSTASH_REDIS_REST_URL: upstash.url, UPSTASH_REDIS_REST_TOKEN: "a-token-that-was-rotated-away" });

    const answers = [await call("GET", "/api/health"), await call("GET", "/api/health")];

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

    const health = await call("GET", "/api/health");

    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({
      error: "This instance cannot serve: its database does not answer.",
      status: "unavailable",
      database: { status: "unavailable", reason: expect.any(String) },
    });
    expect(JSON.stringify(health.body)).not.toMatch(/db-password|127\.0\.0\.1/);
  });
});
