import { startApp, type RunningApp } from "@/server/app-process";
import { Mppx, evm } from "mppx/client";
import Stripe from "stripe";
import { type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newUser } from "../support/api";
import { startFacilitator, type RunningFacilitator } from "../support/payments/facilitator";
import { Eip3009Ledger } from "../support/payments/ledger";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp-server";
import { startStripeStandIn, type StripeStandIn } from "../support/stripe-stand-in";

/**
 * The built app, logging everything (LOG_LEVEL=trace), is sent requests that carry every kind of
 * secret the service handles; then every line it printed is searched for each of them.
 */

const NETWORK = "eip155:84532";
const TOKEN = { address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as Address, chainId: 84532, name: "USDC", version: "2" };
const SETTINGS = {
  OPERATOR_TOKEN: "operator-token-that-must-never-be-logged-0",
  CRON_SECRET: "cron-secret-that-must-never-be-logged",
  MPP_SECRET_KEY: "mpp-secret-key-that-must-never-be-logged-0",
  STRIPE_SECRET_KEY: "sk_test_stripesecretthatmustneverbelogged",
  STRIPE_WEBHOOK_SECRET: "whsec_webhooksecretthatmustneverbelogged",
};

let app: RunningApp;
let facilitator: RunningFacilitator;
let stripe: StripeStandIn;
let smtp: TestSmtpServer;
const SMTP_PASSWORD = "smtp-password-that-must-never-be-logged";
const ledger = new Eip3009Ledger(TOKEN, privateKeyToAccount(generatePrivateKey()).address);
/** Every secret a request carried or an answer revealed, by what it is. */
const secrets: Record<string, string> = { ...SETTINGS, AUTH_SECRET: process.env.AUTH_SECRET!, SMTP_PASSWORD };

beforeAll(async () => {
  [facilitator, stripe, smtp] = await Promise.all([
    startFacilitator(NETWORK, ledger),
    startStripeStandIn(),
    startSmtpServer({ user: "mailer", pass: SMTP_PASSWORD }),
  ]);
  app = await startApp("front", {
    DATABASE_URL: process.env.DATABASE_URL,
    AUTH_SECRET: process.env.AUTH_SECRET,
    DNS_RESOLVER: process.env.DNS_RESOLVER,
    RECHECK_INTERVAL_SECONDS: "0",
    LOG_LEVEL: "trace",
    SMTP_URL: smtp.url,
    EMAIL_FROM: "Permalink <links@example.com>",
    ...SETTINGS,
    PAYMENT_NETWORK: NETWORK,
    PAYMENT_ASSET: TOKEN.address,
    PAYMENT_RECIPIENT: privateKeyToAccount(generatePrivateKey()).address,
    X402_FACILITATOR_URL: facilitator.url,
    STRIPE_API_BASE: stripe.url,
    STRIPE_PRICE_STARTER_MONTH: "price_starter_month",
    STRIPE_PRICE_UNLIMITED_MONTH: "price_unlimited_month",
    STRIPE_PRICE_UNLIMITED_YEAR: "price_unlimited_year",
  });
}, 300_000);

afterAll(async () => {
  await Promise.all([app?.stop(), facilitator?.close(), stripe?.close(), smtp?.close()]);
});

function send(method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Response> {
  return fetch(`${app.url}${path}`, {
    method,
    headers: { ...headers, ...(body !== undefined && { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** What the app printed, as lines; the app has stopped, so nothing is still buffered. */
let lines: string[] = [];

describe("the logs of a server that handled secrets", () => {
  it("handles requests carrying every kind of secret", async () => {
    const user = await newUser("logs");
    secrets.sessionToken = user.token;
    expect((await send("GET", "/api/workspaces", bearer(user.token))).status).toBe(200);

    const claimed = await send("POST", "/api/billing/claim", bearer(user.token));
    expect(claimed.status).toBe(200);
    const claimedKey: string = (secrets.claimedKey = (await claimed.json()).api_key);
    const link = await send("POST", "/api/links", bearer(claimedKey), { destination: "https://example.com/logged" });
    expect(link.status).toBe(201);
    const linkId = (await link.json()).id;
    expect((await send("GET", `/api/links/${linkId}`, bearer(claimedKey))).status).toBe(200);

    const rotated = await send("POST", "/api/keys/rotate", bearer(claimedKey));
    expect(rotated.status).toBe(200);
    const rotatedKey: string = (secrets.rotatedKey = (await rotated.json()).api_key);
    expect((await send("GET", "/api/links", bearer(claimedKey))).status).toBe(401);
    expect((await send("GET", "/api/links", bearer(rotatedKey))).status).toBe(200);

    // A machine payment: the credential, and the key the new machine account is shown.
    const wallet = privateKeyToAccount(generatePrivateKey());
    ledger.fund(wallet.address, 10_000_000n);
    const order = { destination: "https://example.com/bought-and-logged" };
    const challenge = await send("POST", "/api/links", {}, order);
    expect(challenge.status).toBe(402);
    const mpp = Mppx.create({ methods: [evm({ account: wallet, authorization: TOKEN })], polyfill: false });
    const credential = (secrets.paymentCredential = await mpp.createCredential(challenge));
    const bought = await send("POST", "/api/links", { authorization: credential }, order);
    expect(bought.status).toBe(201);
    secrets.machineKey = (await bought.json()).api_key;
    expect(secrets.machineKey).toBeTruthy();
    const forged = (secrets.forgedPaymentSignature = Buffer.from(
      JSON.stringify({ x402Version: 2, payload: { signature: "0xforgedsignaturethatmustneverbelogged" } }),
    ).toString("base64"));
    expect((await send("POST", "/api/links", { "payment-signature": forged }, order)).status).toBe(402);

    // A signed Stripe delivery (about no workspace of ours: logged as a warning, then ignored).
    const payload = JSON.stringify({
      id: "evt_logged",
      type: "customer.subscription.updated",
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: "sub_logged",
          customer: "cus_logged",
          status: "active",
          cancel_at_period_end: false,
          metadata: {},
          items: { data: [{ price: { id: "price_starter_month" }, current_period_start: 1, current_period_end: 2 }] },
        },
      },
    });
    const signature = (secrets.stripeSignature = Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: SETTINGS.STRIPE_WEBHOOK_SECRET,
    }));
    const delivered = await fetch(`${app.url}/api/billing/webhook`, {
      method: "POST",
      headers: { "stripe-signature": signature, "content-type": "application/json" },
      body: payload,
    });
    expect(delivered.status).toBe(200);

    expect((await send("GET", "/api/operator/abuse-reports", bearer(SETTINGS.OPERATOR_TOKEN))).status).toBe(200);
    expect((await send("GET", "/api/cron/recheck", bearer(SETTINGS.CRON_SECRET))).status).toBe(200);

    await inviteAndAccept(user.token);
    await signInByMagicLink("magic@example.com");

    expect(await app.stop()).toBe(0);
    lines = app
      .output()
      .split("\n")
      .filter((line) => line.trim() !== "");
  }, 120_000);

  it("never prints a secret, whole or in part, on any line", () => {
    expect(lines.length).toBeGreaterThan(10);
    for (const [what, secret] of Object.entries(secrets)) {
      for (const part of [secret, ...distinctiveParts(secret)]) {
        const leaks = lines.filter((line) => line.includes(part));
        expect(leaks, `${what} appears in the log`).toEqual([]);
      }
    }
  });

  it("logs one JSON line per API request: request id, level, route pattern, method, status and duration", () => {
    const requests = lines.flatMap(parseJson).filter((line) => line.msg === "request");

    expect(requests.length).toBeGreaterThanOrEqual(13);
    for (const line of requests) {
      expect(line).toEqual(
        expect.objectContaining({
          level: "info",
          reqId: expect.any(String),
          route: expect.stringMatching(/^\/api\//),
          method: expect.any(String),
          status: expect.any(Number),
          durationMs: expect.any(Number),
        }),
      );
    }
    expect(requests).toContainEqual(expect.objectContaining({ route: "/api/links/{id}", method: "GET", status: 200 }));
    expect(requests).toContainEqual(expect.objectContaining({ route: "/api/links", method: "GET", status: 401 }));
    expect(new Set(requests.map((line) => line.reqId)).size).toBe(requests.length);
  });

  it("carries the request's id on what a request logs along the way", () => {
    const warning = lines
      .flatMap(parseJson)
      .find((line) => line.msg === "Stripe event names no workspace of this service; ignored");

    expect(warning).toMatchObject({ level: "warn", route: "/api/billing/webhook", method: "POST", reqId: expect.any(String) });
  });
});

/** An invitation by e-mail, accepted: its token travels in the mail and in the accepting request's path. */
async function inviteAndAccept(inviterToken: string) {
  const invitee = await newUser("logs-invitee");
  const invited = await send("POST", "/api/members", bearer(inviterToken), { email: invitee.email, role: "member" });
  expect(invited.status).toBe(201);
  const mail = await smtp.messageTo(invitee.email);
  const token = (secrets.invitationToken = found(mail.mail.text, /\/invite\/([\w-]+)/));
  expect((await send("POST", `/api/invitations/${token}/accept`, bearer(invitee.token))).status).toBe(200);
}

/** next-auth's magic-link sign-in as a browser runs it: CSRF token, the link from the mail, the session cookie. */
async function signInByMagicLink(email: string) {
  const csrf = await fetch(`${app.url}/api/auth/csrf`);
  const csrfCookie = cookiePairs(csrf);
  const { csrfToken } = await csrf.json();
  secrets.csrfToken = csrfToken;
  const asked = await fetch(`${app.url}/api/auth/signin/email`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie },
    body: new URLSearchParams({ email, csrfToken, callbackUrl: `${app.url}/dashboard`, json: "true" }),
  });
  expect(asked.status).toBe(200);

  const link = new URL(found((await smtp.messageTo(email)).mail.text, /(https?:\/\/\S+)/));
  secrets.magicLinkToken = link.searchParams.get("token")!;
  const callback = await fetch(`${app.url}${link.pathname}${link.search}`, {
    headers: { cookie: csrfCookie },
    redirect: "manual",
  });
  expect(callback.status).toBe(302);
  const session = cookiePairs(callback);
  secrets.sessionCookie = found(session, /next-auth\.session-token=([^;]+)/);

  const dashboard = await fetch(`${app.url}/dashboard`, { headers: { cookie: `${csrfCookie}; ${session}` }, redirect: "manual" });
  expect(dashboard.status).toBe(200);
}

/** The first group `pattern` captures in `text`; the test fails when there is none. */
function found(text: string | undefined, pattern: RegExp): string {
  const match = text?.match(pattern)?.[1];
  expect(match, `${pattern} in ${text}`).toBeDefined();
  return match!;
}

/** The name=value pairs a response sets, as one Cookie header. */
function cookiePairs(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0])
    .join("; ");
}

/** The parts of a secret that identify it on their own: a JWT's segments, a key's random body, a credential's long runs. */
function distinctiveParts(secret: string): string[] {
  return secret.split(/[._\s:=,]+/).filter((part) => part.length >= 16);
}

function parseJson(line: string): Record<string, unknown>[] {
  try {
    const parsed = JSON.parse(line);
    return typeof parsed === "object" && parsed ? [parsed] : [];
  } catch {
    return [];
  }
}
