import { startApp, type RunningApp } from "@/server/app-process";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { newUser } from "../support/api";
import { testAppEnv } from "../support/app-env";
import { rawRequest } from "../support/http";
import { waitUntilClearOfWindowBoundary } from "../support/redis";
import { startUpstashStandIn, type UpstashStandIn } from "../support/upstash-stand-in";

/**
 * Vercel's shape: two instances of the app under `next start` (the proxy answers short links), with
 * Upstash over its REST API as the only shared store (no REDIS_URL), as the README configures a
 * Vercel deployment. Upstash is a stand-in speaking its wire format in front of the local Redis.
 */

const WRITES_PER_MINUTE = 3;
const REPORTS_PER_MINUTE = 10;
const OPERATOR_TOKEN = "operator-token-for-the-upstash-instances-test";
const SHORT_HOST = "s.test.example";
/** What the issue promises: a change is served by every warm instance within 5 s. */
const FRESHNESS_BOUND_MS = 5_000;
/** Room for one test's writes to stay inside one fixed Redis window even on a loaded machine. */
const WINDOW_BOUNDARY_MARGIN_MS = 8_000;

let upstash: UpstashStandIn;
let first: RunningApp;
let second: RunningApp;

beforeAll(async () => {
  upstash = await startUpstashStandIn();
  const env = {
    ...testAppEnv(),
    UPSTASH_REDIS_REST_URL: upstash.url,
    UPSTASH_REDIS_REST_TOKEN: upstash.token,
    WRITE_RATE_LIMIT_PER_MINUTE: String(WRITES_PER_MINUTE),
    SHORT_BASE_URL: `http://${SHORT_HOST}`,
    BASE_URL: "http://app.test.example",
    RECHECK_INTERVAL_SECONDS: "0",
    // Caches that would stay warm for an hour: only the change feed can make a change visible sooner.
    RESOLUTION_CACHE_SECONDS: "3600",
    OPERATOR_TOKEN,
    // As Vercel sets it for the running app: its edge, which the test's X-Forwarded-For plays, is trusted.
    VERCEL: "1",
  };
  [first, second] = await Promise.all([startApp("proxy", env), startApp("proxy", env)]);
}, 120_000);

afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop()]);
  await upstash?.close();
});

beforeEach(() => waitUntilClearOfWindowBoundary(WINDOW_BOUNDARY_MARGIN_MS));

async function post(app: RunningApp, path: string, body: unknown, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(`${app.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", host: "app.test.example", ...headers },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.status;
}

/** Each request to the other instance than the one before. */
async function alternating(count: number, send: (app: RunningApp, index: number) => Promise<number>): Promise<number[]> {
  const statuses: number[] = [];
  for (let index = 0; index < count; index++) statuses.push(await send(index % 2 ? second : first, index));
  return statuses;
}

/** The operator's view of /api/health (each component); an answer is reused for a second after its check. */
const health = async (app: RunningApp) =>
  (await fetch(`${app.url}/api/health`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).json();

describe("shared limits on two instances through Upstash's REST API", { timeout: 60_000 }, () => {
  it("keeps one write budget per workspace across instances", async () => {
    const { token, workspaceId } = await newUser("upstash-writes");
    const statuses = await alternating(WRITES_PER_MINUTE + 1, (app, index) =>
      post(app, "/api/links", { destination: `https://example.com/upstash/${index}` }, { authorization: `Bearer ${token}` }),
    );

    expect(statuses).toEqual([201, 201, 201, 429]);
    expect(await upstash.redis.keys(`permalink:rate-limit:writes:workspace:${workspaceId}:*`)).not.toHaveLength(0);
  });

  it("keeps one write budget per client address across instances, for callers without an account", async () => {
    const buyer = { "x-forwarded-for": `203.0.113.${1 + Math.floor(Math.random() * 250)}` };
    const statuses = await alternating(WRITES_PER_MINUTE + 1, (app, index) =>
      post(app, "/api/links", { destination: `https://example.com/upstash/buyer/${index}` }, buyer),
    );

    expect(statuses.slice(0, WRITES_PER_MINUTE).every((status) => status !== 429)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });

  it("keeps one abuse-report budget per reporter network across instances", async () => {
    const reporter = { "x-forwarded-for": `198.51.100.${1 + Math.floor(Math.random() * 250)}` };
    const statuses = await alternating(REPORTS_PER_MINUTE + 1, (app) =>
      post(app, "/api/abuse-reports", { url: "http://s.test.example/nosuchlink2", reason: "spam" }, reporter),
    );

    expect(statuses).toEqual([...Array<number>(REPORTS_PER_MINUTE).fill(404), 429]);
  });

  it("says so in the log, once per failure spell, and in /api/health when Upstash refuses; recovers when it answers", async () => {
    const accepted = upstash.token;
    expect(await health(first)).toMatchObject({ status: "ok", redis: { status: "ok", store: "upstash" } });

    upstash.rotateToken();
    const { token } = await newUser("upstash-spell");
    const statuses = await alternating(4, (app, index) =>
      post(app, "/api/links", { destination: `https://example.com/spell/${index}` }, { authorization: `Bearer ${token}` }),
    );
    // Each instance now limits in its own memory: 2 writes each, within its budget of 3.
    expect(statuses).toEqual([201, 201, 201, 201]);
    for (const app of [first, second]) {
      await expect
        .poll(() => health(app), { timeout: 5000 })
        .toMatchObject({
          status: "degraded",
          redis: { status: "unavailable", store: "upstash", reason: "WRONGPASS invalid or missing auth token" },
        });
      expect(app.output().match(/the shared store is failing/g)).toHaveLength(1);
      expect(app.output()).toContain("WRONGPASS invalid or missing auth token");
      expect(app.output()).not.toContain(accepted);
    }

    upstash.rotateToken(accepted);
    for (const app of [first, second]) {
      await expect.poll(() => health(app), { timeout: 5000 }).toMatchObject({ status: "ok", redis: { status: "ok" } });
      expect(app.output().match(/the shared store answers again/g)).toHaveLength(1);
    }
  });
});

async function send(app: RunningApp, method: string, path: string, token: string, body?: unknown): Promise<Response> {
  return fetch(`${app.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", host: "app.test.example" },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

const answerOn = (app: RunningApp, slug: string) => rawRequest(app.url, `/${slug}`, { host: SHORT_HOST });

/** Visits `slug` on `app` every 100 ms until `seen` holds; how long that took after `since`. */
async function millisecondsUntil(
  app: RunningApp,
  slug: string,
  since: number,
  seen: (answer: { status: number; location?: string }) => boolean,
) {
  while (Date.now() - since < 2 * FRESHNESS_BOUND_MS) {
    const answer = await answerOn(app, slug);
    if (seen({ status: answer.status, location: answer.headers.location })) return Date.now() - since;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Number.POSITIVE_INFINITY;
}

describe("a change made on one instance, with Upstash's REST API as the only shared store", { timeout: 60_000 }, () => {
  async function warmLinkOnBoth(destination: string): Promise<{ id: string; slug: string; token: string }> {
    const { token } = await newUser("upstash-fresh");
    const response = await send(first, "POST", "/api/links", token, { destination });
    expect(response.status).toBe(201);
    const link = (await response.json()) as { id: string; slug: string };
    for (const app of [first, second]) expect((await answerOn(app, link.slug)).headers.location).toBe(destination);
    return { ...link, token };
  }

  it("is served by the other warm instance within 5 s: a repoint", async () => {
    const link = await warmLinkOnBoth("https://example.com/feed/before");

    expect(
      (await send(first, "PATCH", `/api/links/${link.id}`, link.token, { destination: "https://example.com/feed/after" })).status,
    ).toBe(200);
    const changedAt = Date.now();
    expect((await answerOn(first, link.slug)).headers.location).toBe("https://example.com/feed/after");

    const delay = await millisecondsUntil(
      second,
      link.slug,
      changedAt,
      (answer) => answer.location === "https://example.com/feed/after",
    );
    expect(delay).toBeLessThan(FRESHNESS_BOUND_MS);
    expect(upstash.commands).toEqual(expect.arrayContaining(["xadd", "xread"]));
  });

  it("is served by the other warm instance within 5 s: an operator's block", async () => {
    const link = await warmLinkOnBoth("https://example.com/feed/blocked");

    const blocked = await send(first, "PUT", `/api/operator/links/${link.id}/status`, OPERATOR_TOKEN, {
      status: 2,
      reason: "Phishing",
    });
    expect(blocked.status).toBe(200);
    const changedAt = Date.now();

    const delay = await millisecondsUntil(second, link.slug, changedAt, (answer) => answer.status === 403);
    expect(delay).toBeLessThan(FRESHNESS_BOUND_MS);
    expect((await answerOn(second, link.slug)).body).toContain("Phishing");
  });
});
