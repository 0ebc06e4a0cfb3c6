import { startApp, type RunningApp } from "@/server/app-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testAppEnv } from "../support/app-env";

/**
 * Who a caller without an account is, as the built app decides it for its write budget. Bare
 * `next start` passes on an X-Forwarded-For the client wrote (Next adds the socket's peer only
 * when there is none), so with no proxy counted in TRUSTED_PROXY_HOPS no header names the caller.
 * With one counted (here the test plays it), the entry that proxy wrote does, under `next start`
 * and behind the front door alike.
 */

const WRITES_PER_MINUTE = 3;
const apps: RunningApp[] = [];
let bare: RunningApp;
let proxied: { next: RunningApp; front: RunningApp };

beforeAll(async () => {
  const env = {
    ...testAppEnv(),
    BASE_URL: "http://app.test.example",
    RECHECK_INTERVAL_SECONDS: "0",
    WRITE_RATE_LIMIT_PER_MINUTE: String(WRITES_PER_MINUTE),
  };
  const oneProxy = { ...env, TRUSTED_PROXY_HOPS: "1" };
  apps.push(...(await Promise.all([startApp("proxy", env), startApp("proxy", oneProxy), startApp("front", oneProxy)])));
  [bare, proxied] = [apps[0]!, { next: apps[1]!, front: apps[2]! }];
}, 180_000);

afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
});

/** A link bought without an account: any status but 429 means the write budget let it through. */
async function buy(app: RunningApp, headers: Record<string, string>): Promise<number> {
  const response = await fetch(`${app.url}/api/links`, {
    method: "POST",
    headers: { "content-type": "application/json", host: "app.test.example", ...headers },
    body: JSON.stringify({ destination: "https://example.com/bought" }),
  });
  await response.arrayBuffer();
  return response.status;
}

async function buyInTurn(app: RunningApp, headers: (index: number) => Record<string, string>): Promise<number[]> {
  const statuses: number[] = [];
  for (let index = 0; index <= WRITES_PER_MINUTE; index++) statuses.push(await buy(app, headers(index)));
  return statuses;
}

describe("the write budget of a caller without an account", { timeout: 60_000 }, () => {
  it("is not renewed under bare next start by writing a new X-Forwarded-For or X-Real-IP each time", async () => {
    const statuses = await buyInTurn(bare, (index) => ({
      "x-forwarded-for": `203.0.113.${index + 1}`,
      "x-real-ip": `198.51.100.${index + 1}`,
    }));
    expect(statuses.slice(0, WRITES_PER_MINUTE)).not.toContain(429);
    expect(statuses.at(-1)).toBe(429);
  });

  it.each(["next", "front"] as const)(
    "is one per address the counted proxy saw, whatever the client wrote before it (%s door)",
    async (door) => {
      const app = proxied[door];
      const seen = door === "next" ? "203.0.113.77" : "203.0.113.88";
      const statuses = await buyInTurn(app, (index) => ({ "x-forwarded-for": `10.0.0.${index + 1}, ${seen}` }));
      expect(statuses.slice(0, WRITES_PER_MINUTE)).not.toContain(429);
      expect(statuses.at(-1)).toBe(429);
      // Another address the proxy saw has a budget of its own.
      expect(await buy(app, { "x-forwarded-for": `${seen}, 203.0.113.99` })).not.toBe(429);
    },
  );
});
