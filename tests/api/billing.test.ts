import { mintApiKey } from "@/lib/auth/store";
import { addMonths } from "@/lib/billing/cycles";
import { setClock } from "@/lib/clock";
import { db } from "@/lib/db/client";
import { newId } from "@/lib/db/random";
import { insertLink } from "@/lib/links/store";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { call, joinWorkspace, newUser, type TestUser } from "../support/api";
import { cancelThroughPortal, createLink, KEEP_RESOLVING_SENTENCE, startCheckout } from "../support/billing";
import { TEST_ZONE } from "../support/dns-server";

afterEach(() => setClock(undefined));

async function localCheckoutOf(url: string) {
  return db().localBillingSession.findUniqueOrThrow({ where: { id: new URL(url).pathname.split("/").at(-1)! } });
}

describe("POST /api/billing/checkout", () => {
  it.each([
    ["an empty body: unlimited, monthly", undefined, { plan: "unlimited", interval: "month" }],
    ["an empty object", {}, { plan: "unlimited", interval: "month" }],
    ["starter", { plan: "starter" }, { plan: "starter", interval: "month" }],
    ["starter, monthly", { plan: "starter", interval: "month" }, { plan: "starter", interval: "month" }],
    ["yearly billing", { interval: "year" }, { plan: "unlimited", interval: "year" }],
  ])("accepts %s", async (_label, body, chosen) => {
    const user = await newUser("checkout", { subscription: false });
    const response = await startCheckout(user, body);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ url: expect.any(String) });
    expect(await localCheckoutOf(response.body.url)).toMatchObject({ workspaceId: user.workspaceId, ...chosen });
  });

  it.each([
    [
      "starter with yearly billing",
      { plan: "starter", interval: "year" },
      /"interval" is invalid: the starter plan is billed monthly only/,
    ],
    ["an unknown plan", { plan: "gold" }, /"plan" is invalid: must be one of starter, unlimited/],
    ["an unknown interval", { interval: "week" }, /"interval" is invalid: must be one of month, year/],
    ["a plan that is not a string", { plan: 1 }, /"plan"/],
    ["an unknown field", { plan: "starter", coupon: "FREE" }, /does not accept: coupon/],
    ["a JSON array", [], /./],
    ["JSON null", null, /./],
  ])("refuses %s with 400", async (_label, body, message) => {
    const user = await newUser("checkout", { subscription: false });
    const response = await startCheckout(user, body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: expect.stringMatching(message) });
    expect(await db().localBillingSession.count({ where: { workspaceId: user.workspaceId } })).toBe(0);
  });

  it("refuses a body that is not JSON (400) and a caller without credentials (401)", async () => {
    const user = await newUser("checkout", { subscription: false });
    expect((await call("POST", "/api/billing/checkout", { token: user.token, rawBody: "{plan" })).status).toBe(400);
    expect((await call("POST", "/api/billing/checkout", { body: {} })).status).toBe(401);
  });

  it("refuses a workspace that already has an active subscription (409): plans change in the portal", async () => {
    const response = await startCheckout(await newUser("subscribed"), { plan: "starter" });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ error: expect.stringMatching(/POST \/api\/billing\/portal/) });
  });

  it("is for owners, admins and the workspace's API key; a member gets 403", async () => {
    const owner = await newUser("owner", { subscription: false });
    const asMember = await joinWorkspace(await newUser("member"), owner.workspaceId, "member");
    const asAdmin = await joinWorkspace(await newUser("admin"), owner.workspaceId, "admin");
    const apiKey = (await call("POST", "/api/billing/claim", owner)).body.api_key;

    expect((await call("POST", "/api/billing/checkout", { ...asMember, body: {} })).status).toBe(403);
    expect((await call("POST", "/api/billing/portal", asMember)).status).toBe(403);
    expect((await call("POST", "/api/billing/checkout", { ...asAdmin, body: {} })).status).toBe(200);
    expect((await startCheckout({ token: apiKey })).status).toBe(200);
  });
});

describe("the order of refusals on create", () => {
  it("decides 401 before 402, 400 before 402, and 402 before the destination's safety check (422)", async () => {
    const lapsed = await newUser("lapsed", { subscription: false });
    const outsider = await newUser("outsider", { subscription: false });

    expect(
      (
        await createLink(
          { token: outsider.token, headers: { "x-workspace-id": lapsed.workspaceId } },
          { destination: "https://example.com" },
        )
      ).status,
    ).toBe(401);
    expect((await createLink(lapsed, { destination: "https://example.com", colour: "x" })).status).toBe(400);
    expect((await call("POST", "/api/links", { token: lapsed.token, rawBody: "{" })).status).toBe(400);
    expect((await createLink(lapsed, { destination: "http://10.0.0.1/" })).status).toBe(402);
    expect((await createLink(lapsed, { destination: `https://${TEST_ZONE.privateName}/` })).status).toBe(402);
  });

  it("decides 404 and 403 before 402 on an edit", async () => {
    const owner = await newUser("owner");
    const asMember = await joinWorkspace(await newUser("member"), owner.workspaceId, "member");
    const link = (await createLink(owner, { destination: "https://example.com/owned" })).body;
    await cancelThroughPortal(owner);

    expect(
      (await call("PATCH", "/api/links/lnk_missing", { token: owner.token, body: { destination: "https://example.com/x" } }))
        .status,
    ).toBe(404);
    expect(
      (await call("PATCH", `/api/links/${link.id}`, { ...asMember, body: { destination: "https://example.com/x" } })).status,
    ).toBe(403);
    expect(
      (await call("PATCH", `/api/links/${link.id}`, { token: owner.token, body: { destination: "https://example.com/x" } }))
        .status,
    ).toBe(402);
  });
});

describe("the starter plan's allowance of 100 new links a cycle", () => {
  let user: TestUser;
  const create = (destination: string, extra: Record<string, unknown> = {}) => createLink(user, { destination, ...extra });
  const account = async () => (await call("GET", "/api/account", user)).body;

  beforeAll(async () => {
    user = await newUser("starter", { subscription: { plan: "starter", interval: "month" } });
    for (let batch = 0; batch < 95; batch += 19) {
      const responses = await Promise.all(Array.from({ length: 19 }, (_, i) => create(`https://example.com/seed/${batch + i}`)));
      expect(responses.every((response) => response.status === 201)).toBe(true);
    }
  });

  it("does not spend a unit on a create that returns the existing link (200) or finds the slug taken (409)", async () => {
    const other = await newUser("other");
    await createLink(other, { destination: "https://example.com/elsewhere", slug: "starter-taken" });

    expect((await create("https://example.com/seed/0")).status).toBe(200);
    expect((await create("https://example.com/fresh", { slug: "starter-taken" })).status).toBe(409);
    expect(await account()).toMatchObject({ links_created_this_cycle: 95, remaining: 5 });
  });

  it("gives exactly 5 links to 100 concurrent creates at 95 used, and 402 to the rest", async () => {
    const responses = await Promise.all(Array.from({ length: 100 }, (_, i) => create(`https://example.com/burst/${i}`)));

    expect(responses.filter((response) => response.status === 201)).toHaveLength(5);
    expect(responses.filter((response) => response.status === 402)).toHaveLength(95);
    expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(100);
    expect(await account()).toMatchObject({
      links_created_this_cycle: 100,
      remaining: 0,
      can: { create_links: false, edit_links: true },
    });
  });

  it("answers the 101st new link with 402 naming the upgrade, still returns an existing link, and still allows edits", async () => {
    const refused = await create("https://example.com/one-hundred-and-first");
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({
      error: expect.stringMatching(KEEP_RESOLVING_SENTENCE),
      price: "49.00",
      currency: "AUD",
      pay: ["upgrade"],
      docs: "http://app.test.example/docs#openBillingPortal",
    });
    expect(refused.body.error).toMatch(/all 100 new links/);

    const existing = await create("https://example.com/seed/1");
    expect(existing.status).toBe(200);
    expect(
      (
        await call("PATCH", `/api/links/${existing.body.id}`, {
          token: user.token,
          body: { destination: "https://example.com/seed/1b" },
        })
      ).status,
    ).toBe(200);
    expect((await account()).links_created_this_cycle).toBe(100);
  });

  it("starts counting again in the next cycle", async () => {
    const { cycle_end: cycleEnd } = await account();
    setClock({ now: () => cycleEnd + 60_000 });

    expect((await create("https://example.com/next-cycle")).status).toBe(201);
    expect(await account()).toMatchObject({
      cycle_start: cycleEnd,
      cycle_end: addMonths(new Date(cycleEnd), 1).getTime(),
      links_created_this_cycle: 1,
      remaining: 99,
    });
  });
});

describe("the unlimited plan", () => {
  it("has no cap and counts the links created this cycle", async () => {
    const user = await newUser("unlimited");
    await Promise.all(Array.from({ length: 3 }, (_, i) => createLink(user, { destination: `https://example.com/u/${i}` })));

    expect((await call("GET", "/api/account", user)).body).toMatchObject({
      plan: "unlimited",
      interval: "month",
      status: "active",
      cap: null,
      remaining: null,
      links_created_this_cycle: 3,
      cycle_start: expect.any(Number),
      cycle_end: expect.any(Number),
      grace_ends_at: null,
    });
  });
});

// Creating and repointing with a machine account's key are proven end to end in tests/payments.
describe("a machine account (created by a paid link)", () => {
  async function machineAccount() {
    const workspaceId = newId("ws");
    await db().workspace.create({ data: { id: workspaceId, name: "Machine account", kind: "machine" } });
    const apiKey = await mintApiKey(workspaceId, null);
    const link = await insertLink({
      workspaceId,
      slug: `m${Date.now()}`,
      reusable: false,
      host: null,
      domainId: null,
      destination: "https://example.com/paid",
      createdByUserId: null,
    });
    return { workspaceId, apiKey, link: link! };
  }

  it("has no subscription to start or manage (403), and its account says so", async () => {
    const machine = await machineAccount();
    expect((await startCheckout({ token: machine.apiKey })).status).toBe(403);
    expect((await call("POST", "/api/billing/portal", { token: machine.apiKey })).status).toBe(403);
    expect((await call("GET", "/api/account", { token: machine.apiKey })).body).toMatchObject({
      workspace_kind: "machine",
      status: "none",
      active: false,
      can: { list_links: true, create_links: false, edit_links: true, use_custom_domains: false, manage_billing: false },
    });
  });
});
