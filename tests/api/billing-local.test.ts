import LocalCheckoutPage from "@/app/billing/local/checkout/[id]/page";
import LocalPortalPage from "@/app/billing/local/portal/[id]/page";
import { setClock } from "@/lib/clock";
import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { newId } from "@/lib/db/random";
import { log } from "@/lib/log";
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, newUser } from "../support/api";
import {
  cancelThroughPortal,
  createLink,
  KEEP_RESOLVING_SENTENCE,
  openPortal,
  renderPage,
  sessionIdOf,
  startCheckout,
  submitForm,
} from "../support/billing";
import { visit } from "../support/visits";

afterEach(() => {
  setClock(undefined);
  vi.unstubAllEnvs();
  resetConfig();
});

describe("the local provider's checkout", () => {
  it("goes from checkout to its page, whose form activates the subscription, and then creating works", async () => {
    const user = await newUser("buyer", { subscription: false });
    expect((await createLink(user, { destination: "https://example.com/before" })).status).toBe(402);

    const checkout = await startCheckout(user, { plan: "starter" });
    expect(checkout.status).toBe(200);
    expect(checkout.body).toEqual({
      url: expect.stringMatching(/^http:\/\/app\.test\.example\/billing\/local\/checkout\/cs_local_\w+$/),
    });
    const id = sessionIdOf(checkout.body.url);

    const page = await renderPage(LocalCheckoutPage, id);
    expect(page).toContain("Subscribe to Starter");
    expect(page).toContain("19.00 AUD a month");
    expect(page).toContain("100 new links per billing cycle");
    expect(page).toContain("takes no payment");
    expect(page).toContain(`action="/billing/local/checkout/${id}/complete" method="post">`);
    expect(page).toContain('<a href="/dashboard/billing">Cancel and return to Billing</a>');

    const completed = await submitForm(`/billing/local/checkout/${id}/complete`);
    expect(completed.status).toBe(303);
    expect(completed.headers.get("location")).toBe(`/billing/local/checkout/${id}`);
    const complete = await renderPage(LocalCheckoutPage, id);
    expect(complete).toContain("Purchase complete");
    expect(complete).toContain('<a href="/dashboard/billing">Return to Billing</a>');

    const account = await call("GET", "/api/account", user);
    expect(account.body).toMatchObject({
      provider: "local",
      plan: "starter",
      interval: "month",
      status: "active",
      active: true,
      links_created_this_cycle: 0,
      cap: 100,
      remaining: 100,
      can: { create_links: true, edit_links: true },
    });
    expect((await createLink(user, { destination: "https://example.com/after" })).status).toBe(201);
    expect((await call("GET", "/api/account", user)).body).toMatchObject({ links_created_this_cycle: 1, remaining: 99 });
  });

  it("buys once when the form is submitted twice", async () => {
    const user = await newUser("buyer", { subscription: false });
    const id = sessionIdOf((await startCheckout(user)).body.url);

    const submissions = await Promise.all([1, 2, 3].map(() => submitForm(`/billing/local/checkout/${id}/complete`)));

    expect(submissions.map((submission) => submission.status)).toEqual([303, 303, 303]);
    expect(await db().billingEvent.count({ where: { workspaceId: user.workspaceId } })).toBe(1);
    expect((await call("GET", "/api/account", user)).body).toMatchObject({
      plan: "unlimited",
      interval: "month",
      status: "active",
    });
  });

  it("expires after a day, and answers an unknown checkout with 404", async () => {
    const user = await newUser("buyer", { subscription: false });
    const id = sessionIdOf((await startCheckout(user, { plan: "unlimited", interval: "year" })).body.url);
    setClock({ now: () => Date.now() + 25 * 60 * 60 * 1000 });

    const late = await submitForm(`/billing/local/checkout/${id}/complete`);
    expect(late.status).toBe(410);
    expect(late.body).toEqual({ error: expect.stringMatching(/expired/) });
    expect(await renderPage(LocalCheckoutPage, id)).toContain("This checkout has expired");
    expect((await call("GET", "/api/account", user)).body.status).toBe("none");

    const unknown = await submitForm("/billing/local/checkout/cs_local_nothing/complete");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: expect.any(String) });
    await expect(renderPage(LocalCheckoutPage, "cs_local_nothing")).rejects.toThrow(/NEXT_HTTP_ERROR_FALLBACK;404/);
  });
});

describe("a lapsed subscription (cancelled in the local portal)", () => {
  it("refuses create and edit with 402 but keeps sign-in, the list, archiving, the portal and every link's resolution", async () => {
    const user = await newUser("lapsing");
    const kept = (await createLink(user, { destination: "https://example.com/kept" })).body;
    const toArchive = (await createLink(user, { destination: "https://example.com/to-archive" })).body;
    const portalId = await openPortal(user);
    // Cancelling asks first, then says it is done and leads back to Billing.
    const portal = await renderPage(LocalPortalPage, portalId);
    expect(portal).toContain(`href="/billing/local/portal/${portalId}?step=confirm-cancel"`);
    expect(portal).not.toContain("Yes, cancel the subscription");
    const asked = await renderPage(LocalPortalPage, portalId, { step: "confirm-cancel" });
    expect(asked).toContain("Yes, cancel the subscription");
    expect(asked).toContain(`action="/billing/local/portal/${portalId}/cancel"`);

    const cancelled = await submitForm(`/billing/local/portal/${portalId}/cancel`);
    expect(cancelled.status).toBe(303);
    expect(cancelled.headers.get("location")).toBe(`/billing/local/portal/${portalId}?done=cancelled`);
    const done = await renderPage(LocalPortalPage, portalId, { done: "cancelled" });
    expect(done).toContain("The subscription is cancelled. Every existing link keeps resolving.");
    expect(done).toContain('href="/dashboard/billing">Return to Billing');

    const create = await createLink(user, { destination: "https://example.com/new" });
    expect(create.status).toBe(402);
    expect(create.body).toEqual({
      error: expect.stringMatching(KEEP_RESOLVING_SENTENCE),
      price: "49.00",
      currency: "AUD",
      pay: ["subscribe"],
      docs: "http://app.test.example/docs#startCheckout",
    });
    expect(create.body.error).toMatch(/POST \/api\/billing\/checkout/);
    const edit = await call("PATCH", `/api/links/${kept.id}`, {
      token: user.token,
      body: { destination: "https://example.com/moved" },
    });
    expect(edit.status).toBe(402);
    expect(edit.body).toMatchObject({ error: expect.stringMatching(KEEP_RESOLVING_SENTENCE), pay: ["subscribe"] });

    expect((await call("GET", "/api/workspaces", user)).status).toBe(200);
    const list = await call("GET", "/api/links", user);
    expect(list.status).toBe(200);
    expect(list.body.links.map((link: { id: string }) => link.id)).toEqual([toArchive.id, kept.id]);
    expect((await call("GET", `/api/links/${kept.id}`, user)).status).toBe(200);
    expect((await call("DELETE", `/api/links/${toArchive.id}`, user)).status).toBe(200);
    expect((await call("POST", "/api/billing/portal", user)).status).toBe(200);

    for (const link of [kept, toArchive]) {
      const answer = await visit(`/${link.slug}`);
      expect(answer.status).toBe(302);
      expect(answer.headers.Location).toBe(link.destination);
    }
    expect((await call("GET", "/api/account", user)).body).toMatchObject({
      status: "canceled",
      active: false,
      can: {
        list_links: true,
        create_links: false,
        edit_links: false,
        archive_links: true,
        use_custom_domains: false,
        manage_billing: true,
      },
    });
  });

  it("refuses a create on a custom domain with 402 too", async () => {
    const user = await newUser("lapsing");
    const domain = await db().domain.create({
      data: {
        id: newId("dom"),
        workspaceId: user.workspaceId,
        hostname: `go-${user.userId.toLowerCase()}.example.org`,
        verifiedAt: new Date(),
      },
    });
    expect((await createLink(user, { destination: "https://example.com/d", domain_id: domain.id })).status).toBe(201);
    await cancelThroughPortal(user);

    const refused = await createLink(user, { destination: "https://example.com/e", domain_id: domain.id });
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatch(KEEP_RESOLVING_SENTENCE);
  });

  it("can subscribe again from the portal page", async () => {
    const user = await newUser("returning");
    await cancelThroughPortal(user);
    const portalId = await openPortal(user);
    const page = await renderPage(LocalPortalPage, portalId);
    expect(page).toContain("Subscribe");
    expect(page).toContain("Unlimited, 490.00 AUD a year");
    expect(page).not.toContain("Cancel subscription");

    const chosen = await submitForm(`/billing/local/portal/${portalId}/change`, { plan: "unlimited", interval: "year" });
    expect(chosen.status).toBe(303);
    const checkoutPath = chosen.headers.get("location")!;
    expect(checkoutPath).toMatch(/^\/billing\/local\/checkout\/cs_local_\w+$/);
    expect((await submitForm(`${checkoutPath}/complete`)).status).toBe(303);

    expect((await call("GET", "/api/account", user)).body).toMatchObject({
      plan: "unlimited",
      interval: "year",
      status: "active",
    });
    expect((await createLink(user, { destination: "https://example.com/back" })).status).toBe(201);
  });
});

describe("the local portal", () => {
  it("changes the plan of a live subscription, which starts a new cycle", async () => {
    const user = await newUser("changing");
    await createLink(user, { destination: "https://example.com/on-unlimited" });
    const portalId = await openPortal(user);

    const changed = await submitForm(`/billing/local/portal/${portalId}/change`, { plan: "starter", interval: "month" });

    expect(changed.status).toBe(303);
    expect(changed.headers.get("location")).toBe(`/billing/local/portal/${portalId}`);
    const account = (await call("GET", "/api/account", user)).body;
    expect(account).toMatchObject({
      plan: "starter",
      interval: "month",
      status: "active",
      cap: 100,
      links_created_this_cycle: 0,
    });
    expect(account.cycle_end - account.cycle_start).toBeGreaterThanOrEqual(28 * 24 * 60 * 60 * 1000);
    expect(await renderPage(LocalPortalPage, portalId)).toContain("Starter, 19.00 AUD a month (current plan)");
  });

  it.each([
    ["starter by the year", { plan: "starter", interval: "year" }, 400],
    ["an unknown plan", { plan: "gold", interval: "month" }, 400],
    ["a missing interval", { plan: "unlimited" }, 400],
  ])("refuses %s with 400", async (_label, fields, status) => {
    const user = await newUser("changing");
    const response = await submitForm(`/billing/local/portal/${await openPortal(user)}/change`, fields);
    expect(response.status).toBe(status);
    expect(response.body).toEqual({ error: expect.any(String) });
  });

  it("has nothing to cancel for a workspace that never subscribed (409)", async () => {
    const user = await newUser("never", { subscription: false });
    const cancel = await submitForm(`/billing/local/portal/${await openPortal(user)}/cancel`);
    expect(cancel.status).toBe(409);
    expect(cancel.body).toEqual({ error: expect.any(String) });
  });
});

describe("the local provider in production", () => {
  it("runs only when BILLING_PROVIDER=local is set, and then says loudly in the log that no payment is taken", async () => {
    const user = await newUser("production", { subscription: false });
    vi.stubEnv("NODE_ENV", "production");
    resetConfig();
    const unconfigured = await startCheckout(user);
    expect(unconfigured.status).toBe(503);
    expect(unconfigured.body).toEqual({ error: expect.stringMatching(KEEP_RESOLVING_SENTENCE) });

    vi.stubEnv("BILLING_PROVIDER", "local");
    resetConfig();
    const warn = vi.spyOn(log(), "warn").mockImplementation(() => {});
    const checkout = await startCheckout(user);
    expect(checkout.status).toBe(200);
    expect(await renderPage(LocalCheckoutPage, sessionIdOf(checkout.body.url))).toContain(
      '<p class="warning" role="alert"><strong>The local billing provider takes no payment',
    );
    expect(warn.mock.calls.flat().join("\n")).toMatch(/BILLING_PROVIDER=local on a production deployment/);
    warn.mockRestore();
  });

  it("accepts no Stripe webhooks", async () => {
    const response = await call("POST", "/api/billing/webhook", { rawBody: "{}", headers: { "stripe-signature": "t=1,v1=00" } });
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ error: expect.any(String) });
  });
});
