import { setClock } from "@/lib/clock";
import { resetConfig } from "@/lib/config";
import { disconnectDb } from "@/lib/db/client";
import { resetResolutionRuntime } from "@/lib/resolution/runtime";
import { freePort } from "@/server/app-process";
import { createServer, type AddressInfo, type Server } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { call, newUser } from "../support/api";
import { visit } from "../support/visits";

let now = Date.UTC(2026, 10, 1, 9);
const workingDatabase = process.env.DATABASE_URL!;

/** Points the process at a port where nothing listens: every query now fails to connect. */
async function takeDatabaseDown(): Promise<void> {
  await pointDatabaseAt(await freePort());
}

/** Points the process at a server that accepts connections and never answers: every query hangs. */
async function hangDatabase(): Promise<Server> {
  const silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  await pointDatabaseAt((silent.address() as AddressInfo).port);
  return silent;
}

async function pointDatabaseAt(port: number): Promise<void> {
  await disconnectDb();
  process.env.DATABASE_URL = `postgresql://postgres@127.0.0.1:${port}/gone`;
  resetConfig();
}

beforeAll(() => {
  setClock({ now: () => now });
  resetResolutionRuntime();
});

async function restoreDatabase(): Promise<void> {
  await disconnectDb();
  process.env.DATABASE_URL = workingDatabase;
  resetConfig();
}

afterEach(restoreDatabase);

afterAll(() => setClock(undefined));

describe("with the database down", () => {
  it("keeps resolving cached links, and answers a cold miss with 503 and Retry-After, never a wrong redirect", async () => {
    const user = await newUser();
    const active = (await call("POST", "/api/links", { token: user.token, body: { destination: "https://example.com/cached" } }))
      .body;
    const uncached = (
      await call("POST", "/api/links", { token: user.token, body: { destination: "https://example.com/never-visited" } })
    ).body;
    expect((await visit(`/${active.slug}`)).headers.Location).toBe("https://example.com/cached");

    await takeDatabaseDown();
    now += 24 * 60 * 60 * 1000;

    const cached = await visit(`/${active.slug}`);
    expect(cached.status).toBe(302);
    expect(cached.headers.Location).toBe("https://example.com/cached");
    const cold = await visit(`/${uncached.slug}`);
    expect(cold.status).toBe(503);
    expect(cold.headers["Retry-After"]).toBe("30");
    expect(cold.headers.Location).toBeUndefined();
    expect(cold.body).toContain("try again");
  });

  it("answers within the lookup deadline when the database hangs instead of refusing", async () => {
    const user = await newUser();
    const active = (
      await call("POST", "/api/links", { token: user.token, body: { destination: "https://example.com/hung-cached" } })
    ).body;
    const uncached = (
      await call("POST", "/api/links", { token: user.token, body: { destination: "https://example.com/hung-cold" } })
    ).body;
    expect((await visit(`/${active.slug}`)).status).toBe(302);

    const silent = await hangDatabase();
    now += 24 * 60 * 60 * 1000;
    const started = Date.now();
    const [cached, cold] = await Promise.all([visit(`/${active.slug}`), visit(`/${uncached.slug}`)]);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(cached.headers.Location).toBe("https://example.com/hung-cached");
    expect(cold.status).toBe(503);
    silent.close();
  });
});
