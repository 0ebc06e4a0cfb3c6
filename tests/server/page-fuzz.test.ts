import fc from "fast-check";
import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDashboardSession } from "@/lib/workspaces/sign-in";
import { startApp, type RunningApp } from "@/scripts/app-process";
import { call, newUser } from "../support/api";
import { rawRequest } from "../support/http";

/**
 * Property: whatever reaches a page — any method, a server action's header with a real or made-up
 * id, a form body of any type, well formed or not, from this site or another — the answer is never
 * a 5xx. The pages' api/ siblings are fuzzed in-process by tests/api/fuzz.test.ts; pages and server
 * actions live only in the built app, so this one runs against `npm start`.
 */

const APP_HOST = "pages.test.example";
/** A few hundred requests a run; PAGE_FUZZ_RUNS=5000 for a long hunt. */
const RUNS = Number(process.env.PAGE_FUZZ_RUNS ?? 300);

let app: RunningApp;
let cookie: string;
/** Paths of every page, with real ids where a page takes one. */
let pages: string[];
/** Server action ids the dashboard's forms carry, so the fuzz reaches Next's action decoding. */
let actionIds: string[];

beforeAll(async () => {
  app = await startApp("front", {
    DATABASE_URL: process.env.DATABASE_URL,
    AUTH_SECRET: process.env.AUTH_SECRET,
    DNS_RESOLVER: process.env.DNS_RESOLVER,
    BASE_URL: `http://${APP_HOST}`,
    RECHECK_INTERVAL_SECONDS: "0",
  });
  const user = await newUser("page-fuzz");
  const token = { sub: user.userId, sid: await startDashboardSession(user.userId) };
  cookie = `next-auth.session-token=${await encode({ token, secret: process.env.AUTH_SECRET! })}`;
  const link = await call("POST", "/api/links", { token: user.token, body: { destination: "https://example.com/page-fuzz" } });
  pages = [
    "/",
    "/docs",
    "/docs/agents",
    "/docs/payments",
    "/signin",
    "/signin/check-email",
    "/billing/return",
    "/billing/local/checkout/cs_local_00000000000000000000",
    "/billing/local/portal/bps_local_00000000000000000000",
    "/invite/not-a-token",
    "/dashboard",
    "/dashboard/analytics",
    "/dashboard/billing",
    "/dashboard/domains",
    "/dashboard/members",
    "/dashboard/settings",
    `/dashboard/links/${link.body.id}`,
    "/dashboard/links/lnk_00000000000000000000",
  ];
  actionIds = await actionIdsOn(["/dashboard", `/dashboard/links/${link.body.id}`, "/dashboard/settings", "/signin"]);
  expect(actionIds.length).toBeGreaterThan(0);
}, 300_000);

afterAll(async () => {
  await app?.stop();
});

/** The ids of the server actions the pages' forms post to (`$ACTION_ID_<id>` hidden fields). */
async function actionIdsOn(paths: string[]): Promise<string[]> {
  const ids = new Set<string>();
  for (const path of paths) {
    const page = await rawRequest(app.url, path, { host: APP_HOST, headers: { cookie } });
    for (const match of page.body.matchAll(/\$ACTION_ID_([0-9a-f]{40,})/g)) ids.add(match[1]!);
  }
  return [...ids];
}

const bodies = fc.oneof(
  fc.constant(""),
  fc.string({ maxLength: 200 }),
  fc.constant('--x\r\nContent-Disposition: form-data; name="1_$ACTION_ID_"\r\n\r\n\r\n--x--'),
  fc.constant("--x\r\nContent-Disposition: form-data\r\n\r\nunterminated"),
  fc.constant('["$K1"]'),
  fc.constant("[[[[[[[[[[[[[[[[[[[[[[[["),
  fc.constant("0=%&1=%zz&destination=x"),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString("latin1")),
);

const contentTypes = fc.constantFrom(
  undefined,
  "multipart/form-data",
  "multipart/form-data; boundary=x",
  "multipart/form-data; boundary=",
  'multipart/form-data; boundary="unclosed',
  "application/x-www-form-urlencoded",
  "text/plain;charset=UTF-8",
  "application/json",
  "text/x-component",
);

describe("pages and server actions given anything", () => {
  it("never answer with a 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          method: fc.constantFrom("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"),
          path: fc.constantFrom(...pages),
          signedIn: fc.boolean(),
          action: fc.option(
            fc.oneof(fc.constantFrom(...actionIds), fc.stringMatching(/^[0-9a-f]{40,42}$/), fc.string({ maxLength: 60 })),
          ),
          origin: fc.option(fc.constantFrom(`http://${APP_HOST}`, "http://evil.example", "null", "not a url")),
          contentType: contentTypes,
          routerState: fc.option(fc.constantFrom("%5B%22%22%5D", "not json", "[[[")),
          body: bodies,
        }),
        async (request) => {
          const headers: Record<string, string> = {};
          if (request.signedIn) headers.cookie = cookie;
          if (request.action !== null) headers["next-action"] = request.action.replace(/[^\x21-\x7e]/g, "");
          if (request.origin !== null) headers.origin = request.origin;
          if (request.contentType) headers["content-type"] = request.contentType;
          if (request.routerState !== null) headers["next-router-state-tree"] = request.routerState;
          const withBody = !["GET", "HEAD"].includes(request.method);
          const response = await rawRequest(app.url, request.path, {
            method: request.method,
            host: APP_HOST,
            headers,
            body: withBody ? request.body : undefined,
          });
          expect(
            response.status,
            `${request.method} ${request.path} ${JSON.stringify(headers)}\n${response.body.slice(0, 300)}`,
          ).toBeLessThan(500);
        },
      ),
      { numRuns: RUNS },
    );
  }, 600_000);
});
