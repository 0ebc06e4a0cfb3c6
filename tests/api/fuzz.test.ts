import { resetConfig } from "@/lib/config";
import { OPERATIONS } from "@/lib/openapi/document";
import fc from "fast-check";
import { SignJWT } from "jose";
import Stripe from "stripe";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { call, newUser, ROUTE_TEMPLATES, type ApiResponse } from "../support/api";
import { deepJson, largeCsv, wideCsv } from "../support/hostile-imports";
import { startFacilitator, type RunningFacilitator } from "../support/payments/facilitator";
import { Eip3009Ledger } from "../support/payments/ledger";
import { startStripeStandIn, type StripeStandIn } from "../support/stripe-stand-in";

/**
 * Property: whatever arrives — any method, header, path or body — no route of the app answers
 * with a 5xx, and every failure is JSON with an `error` sentence (405s also name what is allowed).
 * The routes come from the files (app/**\/route.ts), so a route added later is fuzzed too.
 */

const OPERATOR_TOKEN = "operator-token-for-the-fuzz-0123456789";
const CRON_SECRET = "cron-secret-for-the-fuzz";
const NETWORK = "eip155:84532";
const TOKEN = { address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as const, chainId: 84532, name: "USDC", version: "2" };
/** About 15 s on a quiet 2-core machine; FUZZ_RUNS=20000 for a long hunt. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 2500);

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

let facilitator: RunningFacilitator;
/** Real ids and credentials, so the fuzz reaches past authentication and the id checks. */
const known = { ids: [] as string[], credentials: [] as string[], workspaceIds: [] as string[] };

beforeAll(async () => {
  facilitator = await startFacilitator(NETWORK, new Eip3009Ledger(TOKEN, privateKeyToAccount(generatePrivateKey()).address));
  const settings = {
    OPERATOR_TOKEN,
    CRON_SECRET,
    PAYMENT_NETWORK: NETWORK,
    PAYMENT_ASSET: TOKEN.address,
    PAYMENT_RECIPIENT: privateKeyToAccount(generatePrivateKey()).address,
    X402_FACILITATOR_URL: facilitator.url,
    MPP_SECRET_KEY: "fuzz-mpp-secret-key-of-at-least-32-bytes",
  };
  for (const [name, value] of Object.entries(settings)) vi.stubEnv(name, value);
  resetConfig();

  const owner = await newUser("fuzz");
  const link = await call("POST", "/api/links", { token: owner.token, body: { destination: "https://example.com/fuzzed" } });
  const apiKey = await call("POST", "/api/billing/claim", { token: owner.token });
  const portal = await call("POST", "/api/billing/portal", { token: owner.token });
  const checkout = await call("POST", "/api/billing/checkout", {
    token: (await newUser("fuzz-unsubscribed", { subscription: false })).token,
  });
  known.ids.push(
    link.body.id,
    new URL(portal.body.url).pathname.split("/").pop()!,
    new URL(checkout.body.url).pathname.split("/").pop()!,
  );
  known.credentials.push(owner.token, apiKey.body.api_key, OPERATOR_TOKEN, CRON_SECRET, await tokenWithNumericSubject());
  known.workspaceIds.push(owner.workspaceId);
}, 60_000);

afterAll(async () => {
  vi.unstubAllEnvs();
  resetConfig();
  await facilitator?.close();
});

/** A correctly signed session token whose `sub` is a number: its claims fail validation. */
function tokenWithNumericSubject(): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: 12345 as unknown as string })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuer("permalink")
    .setAudience("permalink-api")
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(new TextEncoder().encode(process.env.AUTH_SECRET));
}

// ---- what a request is made of ----

/** Text of every kind: control characters (NUL above all), unicode beyond the BMP, and lengths past every limit. */
const anyText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({
    unit: fc.constantFrom(
      "\u0000",
      "\u0001",
      "\u001f",
      "\u007f",
      "\u0085",
      "\u2028",
      "\ud800",
      "\ufeff",
      "a",
      "/",
      "%",
      ":",
      ".",
    ),
    maxLength: 20,
  }),
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "null",
    "0",
    "-1",
    "1e309",
    "__proto__",
    "constructor",
    "../../etc/passwd",
    "https://example.com/\u0000",
    "http://127.0.0.1/",
  ),
  fc.integer({ min: 1, max: 3 }).map((scale) => "x".repeat(10 ** (scale + 1) * 2)),
);

/** A header value as HTTP can carry it (no CR, LF or NUL; Latin-1). */
const headerText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0xff }).map((code) => String.fromCharCode(code)),
  maxLength: 60,
});

/** Every field name some operation's body or query declares, so bodies hit the validators with the right keys. */
const FIELD_NAMES = [
  ...new Set(
    OPERATIONS.flatMap((operation) =>
      [operation.body, operation.query].flatMap((schema) => Object.keys((schema as { shape?: object } | undefined)?.shape ?? {})),
    ).concat(["plan", "interval"]),
  ),
];

const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  anyText,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 3 }),
  fc.array(anyText, { maxLength: 3 }),
);

const fieldsBody = fc.dictionary(fc.oneof(fc.constantFrom(...FIELD_NAMES), anyText), anyValue, { maxKeys: 5 });

type Body = { text?: string | Uint8Array; contentType?: string };

const anyBody: fc.Arbitrary<Body> = fc.oneof(
  fc.constant({}),
  fieldsBody.map((fields) => ({ text: JSON.stringify(fields), contentType: "application/json" })),
  fc.jsonValue({ maxDepth: 4 }).map((value) => ({ text: JSON.stringify(value), contentType: "application/json" })),
  fc
    .integer({ min: 100, max: 5000 })
    .map((depth) => ({ text: "[".repeat(depth) + "]".repeat(depth), contentType: "application/json" })),
  fc
    .integer({ min: 100, max: 2000 })
    .map((depth) => ({ text: '{"a":'.repeat(depth) + "1" + "}".repeat(depth), contentType: "application/json" })),
  fc
    .constantFrom(17 * 1024, 1100 * 1024)
    .map((size) => ({ text: JSON.stringify({ destination: "x".repeat(size) }), contentType: "application/json" })),
  fieldsBody.map((fields) => ({
    text: new URLSearchParams(
      Object.entries(fields).map(([name, value]) => [name, typeof value === "string" ? value : JSON.stringify(value)]),
    ).toString(),
    contentType: "application/x-www-form-urlencoded",
  })),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ text: bytes, contentType: "image/png" })),
  fc
    .tuple(
      anyText,
      fc.constantFrom(
        "application/json",
        "text/plain",
        "image/svg+xml",
        "multipart/form-data; boundary=x",
        "application/x-www-form-urlencoded",
      ),
    )
    .map(([text, contentType]) => ({ text, contentType })),
);

/** Built once the known credentials exist. */
const anyHeaders = () =>
  fc.record(
    {
      authorization: fc.oneof(
        { arbitrary: fc.constantFrom(...known.credentials).map((credential) => `Bearer ${credential}`), weight: 6 },
        fc.constantFrom("Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Payment ", "Payment eyJ9"),
        headerText.map((text) => `Bearer ${text}`),
        headerText.map((text) => `Payment ${Buffer.from(text).toString("base64url")}`),
        headerText,
      ),
      "x-workspace-id": fc.oneof(fc.constantFrom(...known.workspaceIds), headerText),
      "x-forwarded-for": headerText,
      "if-none-match": headerText,
      "stripe-signature": headerText,
      "payment-signature": fc.oneof(
        headerText,
        fc.jsonValue({ maxDepth: 2 }).map((value) => Buffer.from(JSON.stringify(value)).toString("base64")),
      ),
      accept: headerText,
      // next-auth reads its callback URL from this cookie as well as from callbackUrl.
      cookie: headerText.map((text) => `next-auth.callback-url=${encodeURIComponent(text)}`),
    },
    { requiredKeys: [] },
  );

/** A value for a dynamic segment: a real id, or anything at all (encoded, as a client must send it). */
const anySegment = () =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...known.ids), weight: 3 },
    fc.constantFrom("lnk_00000000000000000000", "lnk_", "0", "-", "null"),
    anyText
      .filter((text) => text !== "" && text !== "." && text !== "..")
      .map((text) => encodeURIComponent(text.replace(/\p{Surrogate}/gu, "\ufffd"))),
  );

/** A path for one of the app's routes, with its dynamic segments (and a catch-all's) filled in, plus a query. */
function anyPath(template: string): fc.Arbitrary<string> {
  const segments = template.split("/").slice(1);
  const parts = segments.map((segment) =>
    segment.startsWith("[...")
      ? fc.array(anySegment(), { minLength: 1, maxLength: 4 }).map((list) => list.join("/"))
      : segment.startsWith("[")
        ? anySegment()
        : fc.constant(segment),
  );
  const query = fc.dictionary(
    fc.oneof(fc.constantFrom(...FIELD_NAMES, "format", "size", "level", "logo", "fg", "bg", "margin", "callbackUrl"), anyText),
    anyText,
    { maxKeys: 3 },
  );
  return fc.tuple(fc.tuple(...parts), query).map(([filled, fields]) => {
    const search = new URLSearchParams(fields as Record<string, string>).toString();
    return `/${filled.join("/")}${search ? `?${search}` : ""}`;
  });
}

type FuzzedRequest = { method: (typeof METHODS)[number]; path: string; headers: Record<string, string>; body: Body };

function anyRequest(): fc.Arbitrary<FuzzedRequest> {
  return fc.record({
    method: fc.constantFrom(...METHODS),
    path: fc.constantFrom(...ROUTE_TEMPLATES).chain(anyPath),
    headers: anyHeaders(),
    body: anyBody,
  });
}

async function send(request: FuzzedRequest): Promise<ApiResponse> {
  const takesBody = request.method !== "GET" && request.method !== "HEAD";
  const headers = {
    ...request.headers,
    ...(takesBody && request.body.contentType && { "content-type": request.body.contentType }),
  };
  return call(request.method, request.path, {
    headers,
    ...(takesBody && request.body.text !== undefined && { rawBody: request.body.text }),
  });
}

/** The promise every route keeps, whatever the request. */
function expectAnAnswer(request: FuzzedRequest, response: ApiResponse): void {
  const where = `${request.method} ${request.path.slice(0, 200)} → ${response.status} ${response.text.slice(0, 200)}`;
  if (!isStripeSwitchedOff(request, response)) expect(response.status, where).toBeLessThan(500);
  if (response.status === 405) expect(response.headers.get("allow"), where).toMatch(/^[A-Z, ]+$/);
  if (response.status < 400 || request.method === "HEAD") return;
  expect(response.headers.get("content-type"), where).toMatch(/^application\/json/);
  expect(response.body, where).toMatchObject({ error: expect.stringMatching(/\S/) });
}

/** These tests bill through the local provider, which takes no Stripe webhooks: a deliberate 503, fuzzed with Stripe on below. */
function isStripeSwitchedOff(request: FuzzedRequest, response: ApiResponse): boolean {
  return (
    new URL(request.path, "http://x").pathname === "/api/billing/webhook" &&
    response.status === 503 &&
    /does not bill through Stripe/.test(response.body?.error)
  );
}

describe("every route, fuzzed", () => {
  it("finds the routes in the files", () => {
    expect(ROUTE_TEMPLATES).toEqual(
      expect.arrayContaining(["/api/links", "/api/links/[id]", "/billing/local/checkout/[id]/complete", "/api/[...path]"]),
    );
  });

  it("never answers 5xx, and every failure is JSON with an error sentence", async () => {
    await fc.assert(
      fc.asyncProperty(anyRequest(), async (request) => expectAnAnswer(request, await send(request))),
      { numRuns: RUNS, endOnFailure: true },
    );
  }, 120_000);
});

describe("the requests an adversarial review found answered 5xx", () => {
  const CALLBACKS = ["x", "not a url", "/%0A/x", "/%E3%80%82x", "https://evil.example/", "//evil.example", "/\\evil.example"];
  it.each(
    ["/api/auth/session", "/api/auth/csrf", "/api/auth/providers", "/api/auth/signin", "/api/auth/callback/email"].flatMap(
      (path) => CALLBACKS.map((callbackUrl) => [path, callbackUrl] as const),
    ),
  )("answers GET %s with callbackUrl=%j, in the query or its cookie, without a 5xx", async (path, callbackUrl) => {
    for (const request of [
      { path: `${path}?callbackUrl=${encodeURIComponent(callbackUrl)}` },
      { path, headers: { cookie: `next-auth.callback-url=${encodeURIComponent(callbackUrl)}` } },
    ]) {
      const response = await call("GET", request.path, { headers: request.headers });
      expect(response.status, `${request.path} → ${response.text.slice(0, 200)}`).toBeLessThan(500);
      const location = response.headers.get("location");
      if (location) expect(new URL(location, "http://localhost").hostname).not.toBe("evil.example");
    }
  });

  it.each([
    ["/api/auth/error?error=%00", "Default"],
    ["/api/auth/error?error=x%0Ay", "Default"],
    ["/api/auth/error/%0D%0Ax", "Default"],
    ["/api/auth/error?error=Verification", "Verification"],
  ])("answers next-auth's error route %s with the sign-in page and a plain code, %s", async (path, code) => {
    const response = await call("GET", path);
    expect(response.status, response.text).toBe(302);
    expect(response.headers.get("location")).toBe(`/signin?error=${code}`);
  });

  it("answers a sign-out with callbackUrl=not a url without a 5xx, returning to a path of our own origin", async () => {
    const csrf = await call("GET", "/api/auth/csrf");
    const cookie = csrf.headers
      .getSetCookie()
      .map((header) => header.split(";")[0])
      .join("; ");
    const response = await call("POST", "/api/auth/signout", {
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      rawBody: new URLSearchParams({ csrfToken: csrf.body.csrfToken, callbackUrl: "not a url", json: "true" }).toString(),
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ url: new URL("/not%20a%20url", process.env.BASE_URL).href });
  });

  it.each(["a%00.com", "a%09.com", "%00", "a b.com"])(
    "answers the TLS ask for domain=%s with 400 and a sentence",
    async (domain) => {
      const response = await call("GET", `/api/domains/tls-ask?domain=${domain}`);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: "The domain parameter is not a hostname: letters, digits, hyphens and dots only." });
    },
  );
});

const WEBHOOK_SECRET = "whsec_fuzz";

/** Stripe-shaped events with fields of every type and value: signed, so they get past the signature to the event checks. */
function anyStripeEvent(): fc.Arbitrary<unknown> {
  const value = fc.oneof(anyValue, fc.integer({ min: -1e15, max: 1e15 }), fc.constantFrom(...known.workspaceIds));
  const object = fc.dictionary(
    fc.oneof(
      fc.constantFrom(
        "id",
        "customer",
        "status",
        "cancel_at_period_end",
        "metadata",
        "items",
        "mode",
        "subscription",
        "client_reference_id",
        "parent",
        "created",
      ),
      anyText,
    ),
    fc.oneof(
      value,
      fc.dictionary(fc.constantFrom("workspace_id", "data", "subscription_details", "subscription", "metadata"), value, {
        maxKeys: 3,
      }),
    ),
    { maxKeys: 8 },
  );
  const type = fc.constantFrom(
    "checkout.session.completed",
    "customer.subscription.created",
    "customer.subscription.updated",
    "customer.subscription.deleted",
    "invoice.paid",
    "invoice.payment_failed",
  );
  return fc.oneof(
    fc.record(
      {
        id: fc.oneof(fc.constant("evt_fuzz"), anyText),
        type: fc.oneof(type, anyText),
        created: fc.oneof(fc.integer(), fc.double(), anyText),
        data: fc.record({ object }),
      },
      { requiredKeys: [] },
    ),
    fc.jsonValue({ maxDepth: 4 }),
  );
}

describe("the Stripe webhook, fuzzed with Stripe switched on", () => {
  let stripe: StripeStandIn;

  beforeAll(async () => {
    stripe = await startStripeStandIn();
    const settings = {
      STRIPE_SECRET_KEY: "sk_test_fuzz",
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_BASE: stripe.url,
      STRIPE_PRICE_STARTER_MONTH: "price_starter",
      STRIPE_PRICE_UNLIMITED_MONTH: "price_unlimited_month",
      STRIPE_PRICE_UNLIMITED_YEAR: "price_unlimited_year",
    };
    for (const [name, value] of Object.entries(settings)) vi.stubEnv(name, value);
    resetConfig();
  });

  afterAll(() => stripe.close());

  it("answers correctly signed events of any shape, and forged ones, without a 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(anyStripeEvent(), fc.boolean(), headerText, async (event, signed, forged) => {
        const payload = JSON.stringify(event);
        const signature = signed ? Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) : forged;
        const request: FuzzedRequest = {
          method: "POST",
          path: "/api/billing/webhook",
          headers: { "stripe-signature": signature },
          body: { text: payload, contentType: "application/json" },
        };
        expectAnAnswer(request, await send(request));
      }),
      { numRuns: Math.ceil(RUNS / 5), endOnFailure: true },
    );
  }, 120_000);
});

/** Requests that found a bug, kept by name. */
describe("requests the fuzz and the security review found", () => {
  const cases: [string, () => FuzzedRequest][] = [
    ["a NUL byte as the local checkout's id", () => post("/billing/local/checkout/%00/complete")],
    [
      "a NUL byte as the local portal's id (change)",
      () => ({
        ...post("/billing/local/portal/%00/change"),
        body: { text: "plan=starter&interval=month", contentType: "application/x-www-form-urlencoded" },
      }),
    ],
    ["a NUL byte as the local portal's id (cancel)", () => post("/billing/local/portal/%00/cancel")],
    [
      "a NUL byte as the operator's link id",
      () => ({
        method: "PUT",
        path: "/api/operator/links/%00/status",
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
        body: json({ status: 0 }),
      }),
    ],
    ["a NUL byte as a link id", () => ({ method: "GET", path: "/api/links/%00", headers: bearer(0), body: {} })],
    [
      "a NUL byte as a link's domain_id",
      () => ({
        method: "POST",
        path: "/api/links",
        headers: bearer(0),
        body: json({ destination: "https://example.com/d", domain_id: "\u0000" }),
      }),
    ],
    [
      "a NUL byte in a list cursor",
      () => ({
        method: "GET",
        path: `/api/links?cursor=${Buffer.from("1:\u0000").toString("base64url")}`,
        headers: bearer(0),
        body: {},
      }),
    ],
    [
      "a cursor dated before PostgreSQL's calendar",
      () => ({
        method: "GET",
        path: `/api/links?cursor=${Buffer.from("-8640000000000000:lnk_00000000000000000000").toString("base64url")}`,
        headers: bearer(0),
        body: {},
      }),
    ],
    [
      "a NUL byte in an abuse report's details",
      () => ({
        method: "POST",
        path: "/api/abuse-reports",
        headers: {},
        body: json({ url: "http://s.test.example/abc2345", reason: "spam", details: "a\u0000b" }),
      }),
    ],
    [
      "a NUL byte in the operator's reason",
      () => ({
        method: "PUT",
        path: `/api/operator/links/${known.ids[0]}/status`,
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
        body: json({ status: 2, reason: "x\u0000" }),
      }),
    ],
    ["a session token whose sub is a number", () => ({ method: "GET", path: "/api/workspaces", headers: bearer(4), body: {} })],
    ["an unsupported method on an existing route", () => ({ method: "DELETE", path: "/api/links", headers: {}, body: {} })],
    ["PUT on the OpenAPI document", () => ({ method: "PUT", path: "/api/openapi.json", headers: {}, body: {} })],
  ];

  it.each(cases)("%s", async (_name, make) => {
    const request = make();
    const response = await send(request);
    expectAnAnswer(request, response);
    expect(response.status).toBeGreaterThanOrEqual(400);
  });

  function post(path: string): FuzzedRequest {
    return { method: "POST", path, headers: {}, body: {} };
  }

  function json(value: unknown): Body {
    return { text: JSON.stringify(value), contentType: "application/json" };
  }

  function bearer(index: number): Record<string, string> {
    return { authorization: `Bearer ${known.credentials[index]}` };
  }
});

describe("imports of hostile shapes", () => {
  const csv = (text: string): Body => ({ text, contentType: "text/csv" });
  const json = (text: string): Body => ({ text, contentType: "application/json" });
  const shapes: [string, () => Body][] = [
    ["200,000 columns × 40 rows", () => csv(wideCsv(200_000, 40))],
    ["a row of 30,000 empty columns", () => csv(`url\n${"https://example.com/,".padEnd(30_000, ",")}\n`)],
    ["a field of 1 MB", () => csv(`url,title\nhttps://example.com/,"${"x".repeat(1_000_000)}"\n`)],
    ["100,001 rows", () => csv(largeCsv(100_001, { rowBytes: 40, destinations: 10 }))],
    ["JSON nested 5,000 deep in tags", () => json(deepJson("tags", 5_000))],
    ["JSON nested 5,000 deep in title", () => json(deepJson("title", 5_000))],
    ["JSON nested 5,000 deep in url", () => json(deepJson("url", 5_000))],
    [
      "JSON links of 1,000 fields each",
      () => json(JSON.stringify([Object.fromEntries(Array.from({ length: 1_000 }, (_, index) => [`f${index}`, "x"]))])),
    ],
    [
      "JSON links with 10,000 different field names",
      () =>
        json(JSON.stringify(Array.from({ length: 10_000 }, (_, index) => ({ url: "https://example.com/", [`f${index}`]: 1 })))),
    ],
  ];

  it.each(shapes)(
    "answers an import of hostile shape (%s) without a 5xx",
    async (_shape, body) => {
      for (const query of ["?dry_run=1", "?format=bitly", ""]) {
        const request: FuzzedRequest = {
          method: "POST",
          path: `/api/imports${query}`,
          headers: { authorization: `Bearer ${known.credentials[0]}` },
          body: body(),
        };
        const response = await send(request);
        expectAnAnswer(request, response);
        expect(response.status).toBeGreaterThanOrEqual(400);
      }
    },
    60_000,
  );
});
