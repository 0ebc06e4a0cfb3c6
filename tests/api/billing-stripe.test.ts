import { setClock } from "@/lib/clock";
import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { newId } from "@/lib/db/random";
import { log } from "@/lib/log";
import Stripe from "stripe";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { call, newUser, type TestUser } from "../support/api";
import { createLink, KEEP_RESOLVING_SENTENCE, startCheckout } from "../support/billing";
import { startStripeStandIn, type StripeStandIn } from "../support/stripe-stand-in";
import { visit } from "../support/visits";

const WEBHOOK_SECRET = "whsec_standin_secret";
const PRICES = {
  starterMonth: "price_starter_month",
  unlimitedMonth: "price_unlimited_month",
  unlimitedYear: "price_unlimited_year",
};
const DAY_SECONDS = 24 * 60 * 60;

let stripe: StripeStandIn;

beforeAll(async () => {
  stripe = await startStripeStandIn();
  vi.stubEnv("STRIPE_SECRET_KEY", "sk_test_standin");
  vi.stubEnv("STRIPE_WEBHOOK_SECRET", WEBHOOK_SECRET);
  vi.stubEnv("STRIPE_API_BASE", stripe.url);
  vi.stubEnv("STRIPE_PRICE_STARTER_MONTH", PRICES.starterMonth);
  vi.stubEnv("STRIPE_PRICE_UNLIMITED_MONTH", PRICES.unlimitedMonth);
  vi.stubEnv("STRIPE_PRICE_UNLIMITED_YEAR", PRICES.unlimitedYear);
  resetConfig();
});

afterAll(async () => {
  vi.unstubAllEnvs();
  resetConfig();
  await stripe.close();
});

beforeEach(() => {
  stripe.requests.length = 0;
});

afterEach(() => setClock(undefined));

const nowSeconds = () => Math.floor(Date.now() / 1000);

function subscriptionObject(
  user: TestUser,
  overrides: { id?: string; status?: string; price?: string; periodStart?: number } = {},
) {
  const periodStart = overrides.periodStart ?? nowSeconds();
  return {
    id: overrides.id ?? `sub_${user.workspaceId}`,
    object: "subscription",
    customer: `cus_${user.workspaceId}`,
    status: overrides.status ?? "active",
    cancel_at_period_end: false,
    metadata: { workspace_id: user.workspaceId },
    items: {
      object: "list",
      data: [
        {
          id: "si_1",
          object: "subscription_item",
          price: { id: overrides.price ?? PRICES.unlimitedMonth, object: "price" },
          current_period_start: periodStart,
          current_period_end: periodStart + 30 * DAY_SECONDS,
        },
      ],
    },
  };
}

function stripeEvent(type: string, object: unknown, created = nowSeconds()) {
  return { id: newId("evt"), object: "event", api_version: Stripe.API_VERSION, created, livemode: false, type, data: { object } };
}

/** A delivery signed with the real scheme (HMAC-SHA256 over "timestamp.payload"), as Stripe sends it. */
function deliver(event: unknown, options: { secret?: string; payload?: string } = {}) {
  const payload = JSON.stringify(event);
  const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: options.secret ?? WEBHOOK_SECRET });
  return call("POST", "/api/billing/webhook", {
    rawBody: options.payload ?? payload,
    headers: { "stripe-signature": signature, "content-type": "application/json" },
  });
}

/** A raw payload correctly signed with the webhook secret, at `timestamp` (seconds; default now). */
function deliverSigned(payload: string, timestamp?: number) {
  const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET, timestamp });
  return call("POST", "/api/billing/webhook", {
    rawBody: payload,
    headers: { "stripe-signature": signature, "content-type": "application/json" },
  });
}

const account = async (user: TestUser) => (await call("GET", "/api/account", user)).body;

describe("checkout and the portal on Stripe", () => {
  it("creates the workspace's customer, then a subscription-mode Checkout Session in AUD tied to the workspace", async () => {
    const user = await newUser("stripe", { subscription: false });

    const response = await startCheckout(user, { plan: "unlimited", interval: "year" });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_\d+$/) });
    const [customer, session] = stripe.requests;
    expect(customer).toMatchObject({
      method: "POST",
      path: "/v1/customers",
      headers: { authorization: "Bearer sk_test_standin", "idempotency-key": `permalink-customer-${user.workspaceId}` },
      form: { name: `${user.email}'s workspace`, "metadata[workspace_id]": user.workspaceId },
    });
    expect(session).toMatchObject({ method: "POST", path: "/v1/checkout/sessions" });
    expect(session!.form).toEqual({
      mode: "subscription",
      customer: expect.stringMatching(/^cus_test_\d+$/),
      client_reference_id: user.workspaceId,
      "line_items[0][price]": PRICES.unlimitedYear,
      "line_items[0][quantity]": "1",
      currency: "aud",
      "metadata[workspace_id]": user.workspaceId,
      "metadata[plan]": "unlimited",
      "metadata[interval]": "year",
      "subscription_data[metadata][workspace_id]": user.workspaceId,
      "subscription_data[metadata][plan]": "unlimited",
      "subscription_data[metadata][interval]": "year",
      success_url: "http://app.test.example/billing/return?checkout=complete",
      cancel_url: "http://app.test.example/billing/return?checkout=canceled",
    });
  });

  it("reuses the customer for the next checkout and for the billing portal", async () => {
    const user = await newUser("stripe", { subscription: false });
    await startCheckout(user);
    const { customerId } = await db().billingAccount.findUniqueOrThrow({ where: { workspaceId: user.workspaceId } });
    stripe.requests.length = 0;

    expect((await startCheckout(user, { plan: "starter" })).status).toBe(200);
    const portal = await call("POST", "/api/billing/portal", user);

    expect(portal.status).toBe(200);
    expect(portal.body).toEqual({ url: expect.stringMatching(/^https:\/\/billing\.stripe\.com\/p\/session\/bps_test_\d+$/) });
    expect(stripe.requests.map((request) => request.path)).toEqual(["/v1/checkout/sessions", "/v1/billing_portal/sessions"]);
    expect(stripe.requests[0]!.form).toMatchObject({ customer: customerId, "line_items[0][price]": PRICES.starterMonth });
    expect(stripe.requests[1]!.form).toEqual({
      customer: customerId,
      return_url: "http://app.test.example/billing/return?portal=closed",
    });
  });

  it("answers 502 when Stripe refuses, and says nothing was charged", async () => {
    const user = await newUser("stripe", { subscription: false });
    vi.spyOn(log(), "error").mockImplementation(() => {});
    stripe.failNextWith(400, { type: "invalid_request_error", message: "No such price" });

    const response = await startCheckout(user);

    expect(response.status).toBe(502);
    expect(response.body).toEqual({ error: expect.stringMatching(/nothing was charged/) });
    vi.mocked(log().error).mockRestore();
  });
});

describe("POST /api/billing/webhook", () => {
  it("activates the subscription from a signed event, after which creating works", async () => {
    const user = await newUser("webhook", { subscription: false });

    const response = await deliver(stripeEvent("customer.subscription.created", subscriptionObject(user)));

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ received: true, outcome: "applied" });
    expect(await account(user)).toMatchObject({
      provider: "stripe",
      plan: "unlimited",
      interval: "month",
      status: "active",
      active: true,
    });
    expect((await createLink(user, { destination: "https://example.com/paid-for" })).status).toBe(201);
  });

  it.each([
    ["signed with another secret", { secret: "whsec_forged", altered: false }],
    ["altered after signing", { secret: WEBHOOK_SECRET, altered: true }],
  ])("refuses an event %s with 400 and applies nothing", async (_label, { secret, altered }) => {
    const user = await newUser("webhook", { subscription: false });
    const event = stripeEvent("customer.subscription.created", subscriptionObject(user));
    const payload = altered ? JSON.stringify(event).replace('"status":"active"', '"status":"trialing"') : undefined;

    const response = await deliver(event, { secret, payload });

    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: expect.stringMatching(/Stripe-Signature/) });
    expect((await account(user)).status).toBe("none");
    expect(await db().billingEvent.count({ where: { id: event.id } })).toBe(0);
  });

  it("refuses a signature timestamp further in the future than the tolerance (400), and accepts ordinary clock skew", async () => {
    const user = await newUser("webhook", { subscription: false });
    const early = stripeEvent("customer.subscription.created", subscriptionObject(user));
    const future = await deliverSigned(JSON.stringify(early), nowSeconds() + 3600);
    expect(future.status).toBe(400);
    expect(future.body).toEqual({ error: expect.stringMatching(/Stripe-Signature.*future/) });
    expect(await db().billingEvent.count({ where: { id: early.id } })).toBe(0);

    const skewed = await deliverSigned(
      JSON.stringify(stripeEvent("customer.subscription.created", subscriptionObject(user))),
      nowSeconds() + 60,
    );
    expect(skewed.status).toBe(200);
    expect((await account(user)).status).toBe("active");
  });

  const MALFORMED: Array<[string, (user: TestUser) => string]> = [
    ["a body that is not JSON", () => "this is not json"],
    ["a JSON array", () => "[]"],
    ["an event without data", () => JSON.stringify({ ...stripeEvent("invoice.paid", {}), data: undefined })],
    [
      "a created time that is not a number",
      (user) => JSON.stringify(stripeEvent("customer.subscription.created", subscriptionObject(user), "yesterday" as never)),
    ],
    [
      "a subscription without items",
      (user) => JSON.stringify(stripeEvent("customer.subscription.updated", { ...subscriptionObject(user), items: undefined })),
    ],
    [
      "a subscription whose id holds a NUL byte",
      (user) => JSON.stringify(stripeEvent("customer.subscription.created", subscriptionObject(user, { id: "sub_\u0000x" }))),
    ],
    [
      "a workspace id with a NUL byte in the metadata",
      (user) =>
        JSON.stringify(
          stripeEvent("customer.subscription.created", { ...subscriptionObject(user), metadata: { workspace_id: "ws_\u0000" } }),
        ),
    ],
    [
      "a period start out of any date range",
      (user) => JSON.stringify(stripeEvent("customer.subscription.created", subscriptionObject(user, { periodStart: 1e20 }))),
    ],
    [
      "a checkout session whose subscription is a number",
      () =>
        JSON.stringify(
          stripeEvent("checkout.session.completed", {
            id: "cs_1",
            object: "checkout.session",
            mode: "subscription",
            subscription: 42,
          }),
        ),
    ],
    [
      "an invoice whose subscription details name no subscription",
      () =>
        JSON.stringify(
          stripeEvent("invoice.paid", { id: "in_1", object: "invoice", parent: { subscription_details: { metadata: {} } } }),
        ),
    ],
  ];

  it.each(MALFORMED)("answers a signed event with %s with 400 and applies nothing", async (_label, payloadFor) => {
    const user = await newUser("webhook", { subscription: false });
    const response = await deliverSigned(payloadFor(user));
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: expect.stringMatching(/^The Stripe event /) });
    expect((await account(user)).status).toBe("none");
    expect(await db().billingEvent.count({ where: { workspaceId: user.workspaceId } })).toBe(0);
  });

  it("refuses a delivery without a Stripe-Signature header (400)", async () => {
    const response = await call("POST", "/api/billing/webhook", { rawBody: JSON.stringify(stripeEvent("invoice.paid", {})) });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: expect.stringMatching(/Stripe-Signature header is missing/) });
  });

  it("ignores a replayed event", async () => {
    const user = await newUser("webhook", { subscription: false });
    const created = stripeEvent("customer.subscription.created", subscriptionObject(user), nowSeconds() - 60);
    await deliver(created);
    await deliver(stripeEvent("customer.subscription.deleted", subscriptionObject(user, { status: "canceled" })));

    const replay = await deliver(created);

    expect(replay.status).toBe(200);
    expect(replay.body).toEqual({ received: true, outcome: "duplicate" });
    expect(await db().billingEvent.count({ where: { id: created.id } })).toBe(1);
    expect((await account(user)).status).toBe("canceled");
  });

  it("does not let an older event delivered late regress the state", async () => {
    const user = await newUser("webhook", { subscription: false });
    const start = nowSeconds() - 100;
    await deliver(stripeEvent("customer.subscription.created", subscriptionObject(user), start));
    const link = (await createLink(user, { destination: "https://example.com/before-lapse" })).body;

    await deliver(stripeEvent("customer.subscription.deleted", subscriptionObject(user, { status: "canceled" }), start + 20));
    const late = await deliver(
      stripeEvent("customer.subscription.updated", subscriptionObject(user, { status: "active" }), start + 10),
    );

    expect(late.body).toEqual({ received: true, outcome: "stale" });
    expect((await account(user)).status).toBe("canceled");
    const create = await createLink(user, { destination: "https://example.com/after-lapse" });
    expect(create.status).toBe(402);
    expect(create.body).toMatchObject({ error: expect.stringMatching(KEEP_RESOLVING_SENTENCE), pay: ["subscribe"] });
    const edit = await call("PATCH", `/api/links/${link.id}`, {
      token: user.token,
      body: { destination: "https://example.com/moved" },
    });
    expect(edit.status).toBe(402);
    expect(edit.body.error).toMatch(KEEP_RESOLVING_SENTENCE);
    expect((await call("GET", "/api/links", user)).status).toBe(200);
    expect((await call("POST", "/api/billing/portal", user)).status).toBe(200);
    expect((await visit(`/${link.slug}`)).headers.Location).toBe("https://example.com/before-lapse");
  });

  it("keeps active when Stripe's created (incomplete) and updated (active) share a second and arrive reversed", async () => {
    const user = await newUser("webhook", { subscription: false });
    const second = nowSeconds();
    await deliver(
      stripeEvent("customer.subscription.updated", subscriptionObject(user, { status: "active", periodStart: second }), second),
    );
    const created = await deliver(
      stripeEvent(
        "customer.subscription.created",
        subscriptionObject(user, { status: "incomplete", periodStart: second }),
        second,
      ),
    );

    expect(created.body.outcome).toBe("stale");
    expect((await account(user)).status).toBe("active");
  });

  it("reads the subscription from Stripe when a checkout completes", async () => {
    const user = await newUser("webhook", { subscription: false });
    const subscription = subscriptionObject(user, { price: PRICES.starterMonth });
    stripe.subscriptions.set(subscription.id, subscription);
    const session = {
      id: "cs_test_done",
      object: "checkout.session",
      mode: "subscription",
      subscription: subscription.id,
      customer: subscription.customer,
      client_reference_id: user.workspaceId,
      metadata: { workspace_id: user.workspaceId },
    };

    const response = await deliver(stripeEvent("checkout.session.completed", session));

    expect(response.body).toEqual({ received: true, outcome: "applied" });
    expect(stripe.requests).toMatchObject([{ method: "GET", path: `/v1/subscriptions/${subscription.id}` }]);
    expect(await account(user)).toMatchObject({ plan: "starter", status: "active", cap: 100 });
  });

  it("answers 502 (so Stripe delivers again) when Stripe's own answer for a completed checkout's subscription cannot be read", async () => {
    const user = await newUser("webhook", { subscription: false });
    const subscription = {
      ...subscriptionObject(user),
      items: { object: "list", data: [{ id: "si_1", price: { id: PRICES.unlimitedMonth } }] },
    };
    stripe.subscriptions.set(subscription.id, subscription);
    const session = {
      id: "cs_test_odd",
      object: "checkout.session",
      mode: "subscription",
      subscription: subscription.id,
      client_reference_id: user.workspaceId,
    };
    vi.spyOn(log(), "error").mockImplementation(() => {});

    const response = await deliver(stripeEvent("checkout.session.completed", session));

    expect(response.status).toBe(502);
    expect(response.body).toEqual({ error: expect.stringMatching(/cannot read/) });
    expect((await account(user)).status).toBe("none");
    vi.mocked(log().error).mockRestore();
  });

  it("keeps creating through a failed payment's grace period, stops after it, and resumes when an invoice is paid", async () => {
    const user = await newUser("webhook", { subscription: false });
    const start = nowSeconds() - 60;
    const subscription = subscriptionObject(user, { periodStart: start });
    const invoice = {
      id: "in_1",
      object: "invoice",
      customer: subscription.customer,
      parent: {
        type: "subscription_details",
        subscription_details: { subscription: subscription.id, metadata: subscription.metadata },
      },
    };
    await deliver(stripeEvent("customer.subscription.created", subscription, start));

    await deliver(stripeEvent("invoice.payment_failed", invoice, start + 10));

    expect(await account(user)).toMatchObject({
      status: "past_due",
      active: true,
      grace_ends_at: (start + 10 + 7 * DAY_SECONDS) * 1000,
    });
    expect((await createLink(user, { destination: "https://example.com/in-grace" })).status).toBe(201);
    setClock({ now: () => (start + 10 + 7 * DAY_SECONDS + 1) * 1000 });
    const overdue = await createLink(user, { destination: "https://example.com/after-grace" });
    expect(overdue.status).toBe(402);
    expect(overdue.body).toMatchObject({ pay: ["subscribe"], error: expect.stringMatching(/overdue/) });
    expect(overdue.body.error).toMatch(KEEP_RESOLVING_SENTENCE);
    const secondCheckout = await call("POST", "/api/billing/checkout", { token: user.token, body: {} });
    expect(secondCheckout.status, "a past-due subscription still bills: no second one").toBe(409);

    await deliver(stripeEvent("invoice.paid", invoice, start + 20));
    expect(await account(user)).toMatchObject({ status: "active", active: true, grace_ends_at: null });
    expect((await createLink(user, { destination: "https://example.com/after-grace" })).status).toBe(201);
  });

  it("acknowledges and ignores events that concern no subscription of this service", async () => {
    const user = await newUser("webhook", { subscription: false });
    vi.spyOn(log(), "warn").mockImplementation(() => {});

    const other = await deliver(stripeEvent("customer.created", { id: "cus_x", object: "customer" }));
    const foreignPrice = await deliver(
      stripeEvent("customer.subscription.created", subscriptionObject(user, { price: "price_someone_else" })),
    );

    expect(other.body).toEqual({ received: true, outcome: "ignored" });
    expect(foreignPrice.body).toEqual({ received: true, outcome: "ignored" });
    expect((await account(user)).status).toBe("none");
    vi.mocked(log().warn).mockRestore();
  });
});
