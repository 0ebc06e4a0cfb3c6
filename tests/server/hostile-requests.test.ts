import { startApp, type RunningApp } from "@/server/app-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, type RawResponse } from "../support/http";

/**
 * What the built app answers to requests Next itself cannot route — malformed escapes, methods a
 * route does not serve, ids of the wrong shape — on both doors: `npm start`'s node:http front door
 * and Next's own server with proxy.ts (as on Vercel). Before the fix these were bare 500s in plain
 * text, or 405s with an empty body.
 */

const APP_HOST = "app.test.example";
const OPERATOR_TOKEN = "operator-token-for-hostile-requests-0123";

let front: RunningApp;
let proxy: RunningApp;

beforeAll(async () => {
  const env = {
    DATABASE_URL: process.env.DATABASE_URL,
    AUTH_SECRET: process.env.AUTH_SECRET,
    DNS_RESOLVER: process.env.DNS_RESOLVER,
    BASE_URL: `http://${APP_HOST}`,
    OPERATOR_TOKEN,
    RECHECK_INTERVAL_SECONDS: "0",
  };
  [front, proxy] = await Promise.all([startApp("front", env), startApp("proxy", env)]);
}, 300_000);

afterAll(async () => {
  await Promise.all([front?.stop(), proxy?.stop()]);
});

const DOORS = [
  ["the front door", () => front],
  ["Next with proxy.ts", () => proxy],
] as const;

function send(
  app: RunningApp,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawResponse> {
  return rawRequest(app.url, path, { method, host: APP_HOST, headers, body });
}

function expectError(response: RawResponse, status: number, sentence: RegExp): void {
  expect(response.status, response.body).toBe(status);
  expect(response.headers["content-type"]).toMatch(/^application\/json/);
  expect(JSON.parse(response.body)).toEqual({ error: expect.stringMatching(sentence) });
}

describe.each(DOORS)("hostile requests on %s", (_door, app) => {
  it.each([
    "/api/links/%",
    "/api/links/%zz",
    "/api/links/%FF",
    "/api/%",
    "/billing/local/portal/%/cancel",
    "/billing/local/checkout/%C0%80",
  ])("answers the malformed escape in %s with 400 JSON", async (path) => {
    expectError(await send(app(), "GET", path), 400, /malformed percent-escape/);
  });

  it.each([
    ["DELETE", "/api/links", "GET, HEAD, POST, OPTIONS"],
    ["PUT", "/api/openapi.json", "GET, HEAD, OPTIONS"],
    ["GET", "/api/billing/webhook", "POST, OPTIONS"],
    ["POST", "/api/links/lnk_00000000000000000000", "GET, HEAD, PATCH, DELETE, OPTIONS"],
    ["GET", "/billing/local/checkout/cs_local_00000000000000000000/complete", "POST, OPTIONS"],
  ])("answers %s %s with 405, Allow and an error sentence", async (method, path, allow) => {
    const response = await send(app(), method, path);

    expectError(response, 405, new RegExp(`^${method} is not an operation of`));
    expect(response.headers.allow).toBe(allow);
  });

  it("lists a route's methods for OPTIONS", async () => {
    const response = await send(app(), "OPTIONS", "/api/links");

    expect(response.status).toBe(204);
    expect(response.headers.allow).toBe("GET, HEAD, POST, OPTIONS");
  });

  it.each([
    ["POST", "/billing/local/checkout/%00/complete", {}, undefined],
    ["POST", "/billing/local/portal/%00/cancel", {}, undefined],
    [
      "PUT",
      "/api/operator/links/%00/status",
      { authorization: `Bearer ${OPERATOR_TOKEN}`, "content-type": "application/json" },
      '{"status":0}',
    ],
  ])("answers a NUL byte as the id in %s %s with 404 JSON, before any query", async (method, path, headers, body) => {
    expectError(await send(app(), method, path, headers, body), 404, /not one this service issued/);
  });
});

describe("methods no route serves", () => {
  it("answers TRACE with 400 JSON on the front door", async () => {
    expectError(await send(front, "TRACE", "/api/links"), 400, /does not take TRACE requests/);
    expectError(await send(front, "TRACE", "/Abc2345"), 400, /does not take TRACE requests/);
  });
});
