import { startDashboardSession } from "@/lib/workspaces/sign-in";
import { startApp, type RunningApp } from "@/server/app-process";
import fc from "fast-check";
import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newUser } from "../support/api";
import { rawRequest } from "../support/http";

/**
 * Property: whatever reaches a page or next-auth's routes — any method, a server action's header
 * with a real or made-up id, a form body of any type, well formed or not, from this site or another,
 * any callback URL in the query, the form or next-auth's cookie, with or without a real CSRF token —
 * the answer is never a 5xx. The other api/ routes are fuzzed in-process by tests/api/fuzz.test.ts;
 * pages, server actions and next-auth behind both doors live only in the built app, so this one
 * runs against `npm start`.
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
/** A real next-auth CSRF token and its cookie, so form posts reach past next-auth's CSRF check. */
let csrf: { token: string; cookie: string };

/** next-auth's routes (app/api/auth/[...nextauth]), the ones its pages and forms use and a few it does not serve. */
const NEXT_AUTH_PATHS = [
  "/api/auth/session",
  "/api/auth/csrf",
  "/api/auth/providers",
  "/api/auth/signin",
  "/api/auth/signin/email",
  "/api/auth/signin/github",
  "/api/auth/callback/email",
  "/api/auth/callback/github",
  "/api/auth/signout",
  "/api/auth/error",
  "/api/auth/verify-request",
  "/api/auth/_log",
  "/api/auth/unknown/route",
];

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
    "/dashboard/tags",
    `/dashboard/links/${link.body.id}`,
    "/dashboard/links/lnk_00000000000000000000",
    ...NEXT_AUTH_PATHS,
  ];
  csrf = await csrfToken();
  actionIds = await actionIdsOn([
    "/dashboard",
    `/dashboard/links/${link.body.id}`,
    "/dashboard/settings",
    "/dashboard/tags",
    "/signin",
  ]);
  expect(actionIds.length).toBeGreaterThan(0);
}, 300_000);

afterAll(async () => {
  await app?.stop();
});

async function csrfToken(): Promise<{ token: string; cookie: string }> {
  const answer = await rawRequest(app.url, "/api/auth/csrf", { host: APP_HOST });
  const cookie = answer.headers["set-cookie"]!.split(";")[0]!;
  return { token: JSON.parse(answer.body).csrfToken, cookie };
}

/** The ids of the server actions the pages' forms post to (`$ACTION_ID_<id>` hidden fields). */
async function actionIdsOn(paths: string[]): Promise<string[]> {
  const ids = new Set<string>();
  for (const path of paths) {
    const page = await rawRequest(app.url, path, { host: APP_HOST, headers: { cookie } });
    for (const match of page.body.matchAll(/\$ACTION_ID_([0-9a-f]{40,})/g)) ids.add(match[1]!);
  }
  return [...ids];
}

/** What a callback URL may be: next-auth answered 500 to some, and the open redirect an adversarial review found hid in others. */
const callbackUrls = fc.oneof(
  fc.constantFrom("x", "not a url", "/dashboard", "/%0A/x", "/%E3%80%82x", "/%5Cevil.example/", "/%09/evil.example/"),
  fc.constantFrom("https://evil.example/", "//evil.example", "/\\evil.example", "javascript:alert(1)", `http://${APP_HOST}/docs`),
  fc.string({ maxLength: 40 }),
);

const bodies = fc.oneof(
  fc.constant(""),
  fc.string({ maxLength: 200 }),
  fc.constant('--x\r\nContent-Disposition: form-data; name="1_$ACTION_ID_"\r\n\r\n\r\n--x--'),
  fc.constant("--x\r\nContent-Disposition: form-data\r\n\r\nunterminated"),
  fc.constant('["$K1"]'),
  fc.constant("[[[[[[[[[[[[[[[[[[[[[[[["),
  fc.constant("0=%&1=%zz&destination=x"),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString("latin1")),
  // next-auth's forms: {csrf} becomes the real token, so the post gets past its CSRF check.
  fc
    .record({
      csrfToken: fc.constantFrom("{csrf}", "", "x"),
      email: fc.oneof(fc.constantFrom("fuzz@example.com", "", "a@b", "x@example.com\r\nBcc: y@example.com"), fc.string()),
      callbackUrl: fc.option(callbackUrls),
      json: fc.constantFrom("true", "false"),
      token: fc.option(fc.string({ maxLength: 64 })),
    })
    .map((fields) =>
      new URLSearchParams(
        Object.entries(fields).flatMap(([name, value]) => (value === null ? [] : [[name, value]])) as [string, string][],
      ).toString(),
    ),
  fc.constant('{"csrfToken":"{csrf}","email":"fuzz@example.com","callbackUrl":"not a url"}'),
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
  "application/x-www-form-urlencoded; charset=UTF-8",
);

describe("pages, server actions and next-auth given anything", () => {
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
          query: fc.option(
            fc.oneof(
              callbackUrls.map((url) => `callbackUrl=${encodeURIComponent(url)}`),
              fc.constantFrom("error=Verification", "error=%00", "token=x&email=fuzz%40example.com", "csrf=true"),
              fc.string({ maxLength: 40 }).map(encodeURIComponent),
            ),
          ),
          callbackCookie: fc.option(callbackUrls),
          withCsrf: fc.boolean(),
        }),
        async (request) => {
          const headers: Record<string, string> = {};
          const cookies = [
            ...(request.signedIn ? [cookie] : []),
            ...(request.withCsrf ? [csrf.cookie] : []),
            ...(request.callbackCookie === null ? [] : [`next-auth.callback-url=${encodeURIComponent(request.callbackCookie)}`]),
          ];
          if (cookies.length > 0) headers.cookie = cookies.join("; ");
          if (request.action !== null) headers["next-action"] = request.action.replace(/[^\x21-\x7e]/g, "");
          if (request.origin !== null) headers.origin = request.origin;
          if (request.contentType) headers["content-type"] = request.contentType;
          if (request.routerState !== null) headers["next-router-state-tree"] = request.routerState;
          const withBody = !["GET", "HEAD"].includes(request.method);
          const path = request.query === null ? request.path : `${request.path}?${request.query}`;
          const body = request.body.replaceAll(encodeURIComponent("{csrf}"), csrf.token).replaceAll("{csrf}", csrf.token);
          const response = await rawRequest(app.url, path, {
            method: request.method,
            host: APP_HOST,
            headers,
            body: withBody ? body : undefined,
          });
          expect(
            response.status,
            `${request.method} ${path} ${JSON.stringify(headers)} ${body}\n${response.body.slice(0, 300)}`,
          ).toBeLessThan(500);
        },
      ),
      { numRuns: RUNS },
    );
  }, 600_000);
});
