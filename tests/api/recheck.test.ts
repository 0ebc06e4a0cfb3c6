import { setClock } from "@/lib/clock";
import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { newId, randomString } from "@/lib/db/random";
import { stopServingDestination } from "@/lib/domains/destination-blocks";
import { forgetVerifiedHosts } from "@/lib/domains/verified-hosts";
import { onInvalidation, type Invalidation } from "@/lib/links/invalidation";
import { recheckLinks } from "@/lib/resolution/recheck";
import { blockForAbuse } from "@/lib/resolution/store";
import { runWebhookDeliveries } from "@/lib/webhooks/worker";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call, newUser, type TestUser } from "../support/api";
import { useTestBlocklist } from "../support/blocklist";
import { startTestDnsServer, TEST_ZONE } from "../support/dns-server";
import type { FakeDnsServer } from "../support/fake-dns-server";
import { visit } from "../support/visits";
import { startWebhookReceiver } from "../support/webhook-receiver";

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const FULL_RUN = { quarantinedLimit: 200, activeSample: 20 };
const CRON_SECRET = "cron-secret-for-the-tests";

let blocklist: Awaited<ReturnType<typeof useTestBlocklist>>;
/** This file's own DNS server (the suite's zone), so a test can point a destination's name inside. */
let dns: FakeDnsServer;
const suiteDnsResolver = process.env.DNS_RESOLVER;
let startedAt: number;
let now: number;
let linkCounter = 0;

/** Moves the process clock to this long after the test started. */
function travelTo(offsetMs: number): void {
  now = startedAt + offsetMs;
}

async function createLink(destination = `https://example.com/recheck/${++linkCounter}`, owner?: TestUser) {
  const response = await call("POST", "/api/links", { token: (owner ?? (await newUser())).token, body: { destination } });
  expect(response.status, response.text).toBe(201);
  return response.body as { id: string; slug: string };
}

/** What a run answers: links checked, released and blocked, then domains checked and their destinations blocked. */
const totals = (checked: number, released: number, blocked: number, domainsChecked = 0, domainBlocks = 0) => ({
  checked,
  released,
  blocked,
  domains_checked: domainsChecked,
  domain_destinations_blocked: domainBlocks,
});

const stored = (id: string) => db().link.findUniqueOrThrow({ where: { id } });

function rememberInvalidations(): Invalidation[] {
  const heard: Invalidation[] = [];
  onInvalidation((invalidation) => heard.push(invalidation));
  return heard;
}

beforeAll(async () => {
  dns = await startTestDnsServer();
  process.env.DNS_RESOLVER = dns.resolver;
  blocklist = await useTestBlocklist();
});

afterAll(async () => {
  process.env.DNS_RESOLVER = suiteDnsResolver;
  blocklist.remove();
  await dns.close();
});

beforeEach(async () => {
  // Each test sees only its own links and domains: a run walks every due link and domain in the database.
  await db().link.deleteMany();
  await db().domain.deleteMany();
  forgetVerifiedHosts();
  startedAt = Date.now();
  now = startedAt;
  setClock({ now: () => now });
});

afterEach(() => {
  setClock(undefined);
});

describe("recheckLinks: quarantined links", () => {
  it("counts a clean check at most once per spacing and releases at day 7 with three, not before", async () => {
    const link = await createLink();

    travelTo(HOUR_MS);
    expect(await recheckLinks(FULL_RUN)).toEqual(totals(1, 0, 0));
    expect(await stored(link.id)).toMatchObject({ status: 1, cleanChecks: 1 });

    travelTo(HOUR_MS + 30 * 60 * 1000);
    expect(await recheckLinks(FULL_RUN)).toEqual(totals(0, 0, 0));

    travelTo(3 * HOUR_MS);
    await recheckLinks(FULL_RUN);
    travelTo(6 * DAY_MS);
    expect(await recheckLinks(FULL_RUN)).toEqual(totals(1, 0, 0));
    expect(await stored(link.id)).toMatchObject({ status: 1, cleanChecks: 3 });

    const heard = rememberInvalidations();
    travelTo(7 * DAY_MS);
    expect(await recheckLinks(FULL_RUN)).toEqual(totals(1, 1, 0));
    expect(await stored(link.id)).toMatchObject({ status: 0, cleanChecks: 4 });
    expect(heard).toContainEqual({ kind: "link", host: null, slug: link.slug });
  });

  it("counts once, and releases once, when two runs go at the same time", async () => {
    const link = await createLink();

    travelTo(HOUR_MS);
    await Promise.all([recheckLinks(FULL_RUN), recheckLinks(FULL_RUN)]);
    expect((await stored(link.id)).cleanChecks).toBe(1);

    travelTo(3 * HOUR_MS);
    await recheckLinks(FULL_RUN);
    travelTo(7 * DAY_MS);
    const runs = await Promise.all([recheckLinks(FULL_RUN), recheckLinks(FULL_RUN)]);
    expect(runs.reduce((sum, run) => sum + run.released, 0)).toBe(1);
    expect(await stored(link.id)).toMatchObject({ status: 0, cleanChecks: 3 });
  });

  it("blocks a link whose destination became malicious, and every instance drops its copy", async () => {
    const domain = `turned-bad-${Date.now()}.example.com`;
    const link = await createLink(`https://${domain}/offer`);
    await blocklist.add(domain, "malware");
    const heard = rememberInvalidations();

    travelTo(HOUR_MS);
    expect(await recheckLinks(FULL_RUN)).toEqual(totals(1, 0, 1));

    const row = await stored(link.id);
    expect(row.status).toBe(2);
    expect(row.abuseReason).toMatch(/blocklist.*malware/);
    expect(heard).toContainEqual({ kind: "link", host: null, slug: link.slug });
    expect(await recheckLinks(FULL_RUN)).toEqual(totals(0, 0, 0));
  });

  it("does not count an unknown verdict (the destination does not resolve), but records the check", async () => {
    const link = await createLink(`https://${TEST_ZONE.missingName}/promo`);

    travelTo(HOUR_MS);
    expect(await recheckLinks(FULL_RUN)).toEqual(totals(1, 0, 0));

    const row = await stored(link.id);
    expect(row).toMatchObject({ status: 1, cleanChecks: 0, lastCountedCheckAt: null });
    expect(row.lastCheckedAt?.getTime()).toBe(startedAt + HOUR_MS);
  });

  it("takes the least recently checked quarantined links first, up to the limit", async () => {
    const [neverChecked, checkedLongAgo, checkedLately] = [await createLink(), await createLink(), await createLink()];
    await db().link.update({ where: { id: checkedLongAgo.id }, data: { lastCheckedAt: new Date(startedAt - 5 * DAY_MS) } });
    await db().link.update({ where: { id: checkedLately.id }, data: { lastCheckedAt: new Date(startedAt - 2 * DAY_MS) } });

    expect(await recheckLinks({ quarantinedLimit: 2, activeSample: 0 })).toEqual(totals(2, 0, 0));

    expect((await stored(neverChecked.id)).cleanChecks).toBe(1);
    expect((await stored(checkedLongAgo.id)).cleanChecks).toBe(1);
    expect((await stored(checkedLately.id)).cleanChecks).toBe(0);
  });
});

describe("recheckLinks: active links", () => {
  it("re-checks a sample, least recently checked first, and blocks one that turned malicious", async () => {
    const domain = `went-rogue-${Date.now()}.example.com`;
    const rogue = await createLink(`https://${domain}/`);
    const [fine, recentlyChecked] = [await createLink(), await createLink()];
    await db().link.updateMany({ where: { id: { in: [rogue.id, fine.id, recentlyChecked.id] } }, data: { status: 0 } });
    await db().link.update({ where: { id: recentlyChecked.id }, data: { lastCheckedAt: new Date(startedAt - HOUR_MS) } });
    await blocklist.add(domain, "malware");

    expect(await recheckLinks({ quarantinedLimit: 200, activeSample: 2 })).toEqual(totals(2, 0, 1));

    expect(await stored(rogue.id)).toMatchObject({ status: 2, abuseReason: expect.stringMatching(/blocklist/) });
    expect(await stored(fine.id)).toMatchObject({ status: 0, lastCheckedAt: new Date(startedAt), cleanChecks: 0 });
    expect((await stored(recentlyChecked.id)).lastCheckedAt).toEqual(new Date(startedAt - HOUR_MS));
  });
});

describe("recheckLinks: every destination a link holds", () => {
  async function linkWith(owner: TestUser, body: Record<string, unknown>, status: 0 | 1) {
    const link = await createLink(undefined, owner);
    const edited = await call("PATCH", `/api/links/${link.id}`, { token: owner.token, body });
    expect(edited.status, edited.text).toBe(200);
    await db().link.update({ where: { id: link.id }, data: { status } });
    return link;
  }

  it("blocks the whole link when a rule's destination turned malicious, and says so as link.status_changed", async () => {
    process.env.WEBHOOK_PRIVATE_NETWORKS = "127.0.0.0/8";
    resetConfig();
    const receiver = await startWebhookReceiver();
    try {
      const owner = await newUser("recheck-rules");
      const hook = await call("POST", "/api/webhooks", {
        token: owner.token,
        body: { url: receiver.url, events: ["link.status_changed"] },
      });
      receiver.secret = hook.body.secret;
      const domain = `rule-turned-bad-${Date.now()}.example.com`;
      const rules = [
        { when: { language: ["fr"] }, destination: "https://example.com/fr" },
        { when: { os: ["ios"] }, destination: `https://${domain}/app` },
      ];
      const link = await linkWith(owner, { rules }, 0);
      await blocklist.add(domain, "malware");
      const heard = rememberInvalidations();

      expect(await recheckLinks(FULL_RUN)).toEqual(totals(1, 0, 1));

      const row = await stored(link.id);
      expect(row).toMatchObject({ status: 2, destination: `https://example.com/recheck/${linkCounter}` });
      expect(row.abuseReason).toMatch(/^Rule 2's destination: .*blocklist.*malware/);
      expect(heard).toContainEqual({ kind: "link", host: null, slug: link.slug });
      // Every visitor gets the warning page, whether a rule would have sent them elsewhere or not.
      const visitors: Record<string, string>[] = [{}, { "accept-language": "fr" }, { "user-agent": "Mozilla/5.0 (iPhone)" }];
      for (const headers of visitors) expect((await visit(`/${link.slug}`, { headers })).status).toBe(403);

      while ((await runWebhookDeliveries()).attempted > 0);
      expect(receiver.unverified).toBe(0);
      expect(receiver.received.map((message) => [message.type, message.data.id, message.data.status])).toEqual([
        ["link.status_changed", link.id, 2],
      ]);
    } finally {
      await receiver.close();
      delete process.env.WEBHOOK_PRIVATE_NETWORKS;
      resetConfig();
    }
  });

  it("blocks a quarantined link whose scheduled destination's name now resolves inside, before its time comes", async () => {
    const owner = await newUser("recheck-schedule");
    const name = `scheduled-${Date.now()}.example.net`;
    const at = startedAt + 30 * DAY_MS;
    const link = await linkWith(owner, { schedule: [{ at, destination: `https://${name}/launch` }] }, 1);
    dns.set(name, { a: ["10.0.0.9"] });

    travelTo(HOUR_MS);
    expect(await recheckLinks(FULL_RUN)).toEqual(totals(1, 0, 1));

    const row = await stored(link.id);
    expect(row.status).toBe(2);
    expect(row.abuseReason).toMatch(new RegExp(`^The destination scheduled for ${new Date(at).toISOString()}: .*dns: policy`));
    // The block stays when the time comes: the schedule never lifts it.
    travelTo(at);
    expect((await visit(`/${link.slug}`)).status).toBe(403);
  });

  it("counts a quarantined link's check only when every destination it holds is clean", async () => {
    const owner = await newUser("recheck-unknown-rule");
    const undecided = [{ when: { os: ["android"] }, destination: `https://${TEST_ZONE.missingName}/app` }];
    const link = await linkWith(owner, { rules: undecided }, 1);

    travelTo(HOUR_MS);
    expect(await recheckLinks(FULL_RUN)).toEqual(totals(1, 0, 0));
    expect(await stored(link.id)).toMatchObject({ status: 1, cleanChecks: 0, lastCheckedAt: new Date(startedAt + HOUR_MS) });

    await call("PATCH", `/api/links/${link.id}`, {
      token: owner.token,
      body: { rules: [{ when: { os: ["android"] }, destination: "https://example.com/android" }] },
    });
    travelTo(3 * HOUR_MS);
    expect(await recheckLinks(FULL_RUN)).toEqual(totals(1, 0, 0));
    expect(await stored(link.id)).toMatchObject({ status: 1, cleanChecks: 1 });
  });

  it("blocks nothing for a verdict about a destination the link no longer holds", async () => {
    const owner = await newUser("recheck-gone-rule");
    const ruled = "https://example.com/was-a-rule";
    const scheduled = "https://example.com/was-scheduled";
    const link = await linkWith(
      owner,
      { rules: [{ when: { os: ["ios"] }, destination: ruled }], schedule: [{ at: startedAt + DAY_MS, destination: scheduled }] },
      0,
    );
    await call("PATCH", `/api/links/${link.id}`, { token: owner.token, body: { rules: [], schedule: [] } });

    expect(await blockForAbuse(link.id, "stale verdict", ruled)).toBeNull();
    expect(await blockForAbuse(link.id, "stale verdict", scheduled)).toBeNull();
    expect((await stored(link.id)).status).toBe(1);

    await call("PATCH", `/api/links/${link.id}`, {
      token: owner.token,
      body: { schedule: [{ at: startedAt + DAY_MS, destination: scheduled }] },
    });
    expect(await blockForAbuse(link.id, "verdict about a scheduled destination", scheduled)).toMatchObject({ status: 2 });
  });
});

describe("recheckLinks: a verified domain's root_destination and not_found_destination", () => {
  async function verifiedDomain(owner: TestUser): Promise<{ id: string; hostname: string }> {
    const hostname = `go-${randomString("abcdefghijkmnpqrstuvwxyz", 8)}.recheck-domains.com`;
    const id = newId("dom");
    await db().domain.create({ data: { id, workspaceId: owner.workspaceId, hostname, verifiedAt: new Date(now) } });
    return { id, hostname };
  }
  const setDestinations = (owner: TestUser, id: string, body: Record<string, unknown>) =>
    call("PATCH", `/api/domains/${id}`, { token: owner.token, body });

  it("stops serving a destination that turned bad, with the warning page, and never an existing code", async () => {
    // Before the fix the re-check looked at links only: a domain's root kept redirecting to a listed site.
    const owner = await newUser("recheck-domain");
    const domain = await verifiedDomain(owner);
    const listed = `root-turned-bad-${Date.now()}.example.com`;
    const inside = `lost-turned-inside-${Date.now()}.example.net`;
    const set = await setDestinations(owner, domain.id, {
      root_destination: `https://${listed}/home`,
      not_found_destination: `https://${inside}/lost`,
    });
    expect(set.status, set.text).toBe(200);
    const made = await call("POST", "/api/links", {
      token: owner.token,
      body: { destination: "https://example.com/menu", slug: "menu", domain_id: domain.id },
    });
    expect(made.status, made.text).toBe(201);
    await db().link.update({ where: { id: made.body.id }, data: { status: 0 } });
    const on = (path: string) => visit(path, { host: domain.hostname });
    // Served, and the host's answer cached, before either turns bad.
    expect(await on("/")).toMatchObject({ status: 302, headers: { Location: `https://${listed}/home` } });
    expect(await on("/gone")).toMatchObject({ status: 302, headers: { Location: `https://${inside}/lost` } });
    await blocklist.add(listed, "phishing");
    dns.set(inside, { a: ["10.0.0.9"] });
    const heard = rememberInvalidations();

    travelTo(HOUR_MS);
    expect(await recheckLinks(FULL_RUN)).toEqual(totals(1, 0, 0, 1, 2));
    expect(heard).toContainEqual({ kind: "domain", hostname: domain.hostname });

    // The root and unknown codes get the warning page a blocked link's visit gets, never the redirect.
    const root = await on("/");
    expect(root.status).toBe(403);
    expect(root.headers.Location).toBeUndefined();
    expect(root.body).toMatch(/blocklist: phishing/);
    const unknown = await on("/gone");
    expect([unknown.status, unknown.headers.Location]).toEqual([403, undefined]);
    expect(unknown.body).toMatch(/dns: policy/);
    // Existing codes answer for themselves, in any case, as ever.
    expect(await on("/menu")).toMatchObject({ status: 302, headers: { Location: "https://example.com/menu" } });
    expect(await on("/MENU")).toMatchObject({ status: 302, headers: { Location: "https://example.com/menu" } });
    expect(await db().scanEvent.count({ where: { host: domain.hostname } })).toBe(0);

    // The owner is told why, and what no longer is served is not checked again.
    const shown = await call("GET", `/api/domains/${domain.id}`, { token: owner.token });
    expect(shown.body).toMatchObject({
      root_destination: `https://${listed}/home`,
      root_destination_blocked: expect.stringMatching(/blocklist: phishing/),
      not_found_destination_blocked: expect.stringMatching(/dns: policy/),
    });
    expect(await recheckLinks({ quarantinedLimit: 0, activeSample: 0 })).toMatchObject({ domains_checked: 0 });

    // Setting it again goes through the gate: the same harmful address is refused, another is served at once.
    const again = await setDestinations(owner, domain.id, { root_destination: `https://${listed}/home` });
    expect([again.status, again.body.error]).toEqual([422, expect.any(String)]);
    const replaced = await setDestinations(owner, domain.id, { root_destination: "https://example.com/welcome" });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body).toMatchObject({ root_destination_blocked: null, not_found_destination_blocked: expect.any(String) });
    expect(await on("/")).toMatchObject({ status: 302, headers: { Location: "https://example.com/welcome" } });
    expect((await on("/gone")).status).toBe(403);
  });

  it("keeps every existing code of a domain whose root it blocked resolving; only the root answers the warning", async () => {
    // Permanence: a code once issued never stops resolving, whatever happens to the domain's own root.
    const owner = await newUser("recheck-domain-codes");
    const domain = await verifiedDomain(owner);
    const listed = `root-listed-${Date.now()}.example.com`;
    const set = await setDestinations(owner, domain.id, {
      root_destination: `https://${listed}/home`,
      not_found_destination: "https://example.com/lost",
    });
    expect(set.status, set.text).toBe(200);
    // A plain code, one of several segments, one with a rule, a password-protected one and an archived one.
    const codes: Record<string, { body?: Record<string, unknown>; answer: { status: number; location?: string } }> = {
      menu: { answer: { status: 302, location: "https://example.com/codes/menu" } },
      "menus/spring": { answer: { status: 302, location: "https://example.com/codes/menus/spring" } },
      routed: { answer: { status: 302, location: "https://example.com/codes/routed" } },
      guarded: { body: { password: "correct horse battery" }, answer: { status: 401 } },
      past: { answer: { status: 302, location: "https://example.com/codes/past" } },
    };
    const ids: string[] = [];
    for (const [slug, { body }] of Object.entries(codes)) {
      const made = await call("POST", "/api/links", {
        token: owner.token,
        body: { destination: `https://example.com/codes/${slug}`, slug, domain_id: domain.id, ...body },
      });
      expect(made.status, made.text).toBe(201);
      ids.push(made.body.id);
    }
    const routed = await call("PATCH", `/api/links/${ids[2]}`, {
      token: owner.token,
      body: { rules: [{ when: { language: ["fr"] }, destination: "https://example.com/codes/fr" }] },
    });
    expect(routed.status, routed.text).toBe(200);
    expect((await call("DELETE", `/api/links/${ids.at(-1)}`, { token: owner.token })).status).toBe(200);
    await db().link.updateMany({ where: { id: { in: ids } }, data: { status: 0 } });
    const on = (path: string) => visit(path, { host: domain.hostname });
    const everyCodeAnswers = async () => {
      for (const [slug, { answer }] of Object.entries(codes)) {
        for (const path of [`/${slug}`, `/${slug.toUpperCase()}`]) {
          const got = await on(path);
          expect([path, got.status, got.headers.Location]).toEqual([path, answer.status, answer.location]);
        }
      }
    };
    await everyCodeAnswers();
    const linksBefore = await db().link.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" } });
    await blocklist.add(listed, "phishing");

    travelTo(HOUR_MS);
    expect(await recheckLinks({ quarantinedLimit: 0, activeSample: 0 })).toEqual(totals(0, 0, 0, 1, 1));

    // The root answers the warning page, as a blocked link's visit does; a code it does not have still goes where the owner says.
    const root = await on("/");
    expect([root.status, root.headers.Location]).toEqual([403, undefined]);
    expect(root.body).toMatch(/blocklist: phishing/);
    expect(await on("/missing")).toMatchObject({ status: 302, headers: { Location: "https://example.com/lost" } });
    // Every code answers exactly as before, in any case; not one of their rows was touched.
    await everyCodeAnswers();
    expect(await db().link.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" } })).toEqual(linksBefore);
    expect(await db().linkHistory.count({ where: { linkId: { in: ids }, change: { not: "created" } } })).toBe(2);

    // Cleared by the owner, the root answers our plain page; the codes still answer for themselves.
    expect((await setDestinations(owner, domain.id, { root_destination: null })).status).toBe(200);
    const plain = await on("/");
    expect([plain.status, plain.headers.Location]).toEqual([404, undefined]);
    expect(plain.body).toMatch(/serves short links only/);
    await everyCodeAnswers();
  });

  it("re-checks a clean domain's destinations, least recently checked first, and blocks nothing for a replaced one", async () => {
    const owner = await newUser("recheck-domain-clean");
    const [first, second] = [await verifiedDomain(owner), await verifiedDomain(owner)];
    for (const domain of [first, second])
      expect((await setDestinations(owner, domain.id, { root_destination: "https://example.com/root" })).status).toBe(200);
    await db().domain.update({ where: { id: second.id }, data: { destinationsCheckedAt: new Date(startedAt - DAY_MS) } });
    await db().domain.update({ where: { id: first.id }, data: { destinationsCheckedAt: new Date(startedAt - HOUR_MS) } });

    expect(await recheckLinks({ quarantinedLimit: 0, activeSample: 0, domainSample: 1 })).toMatchObject({
      domains_checked: 1,
      domain_destinations_blocked: 0,
    });
    expect((await db().domain.findUniqueOrThrow({ where: { id: second.id } })).destinationsCheckedAt).toEqual(
      new Date(startedAt),
    );
    expect((await db().domain.findUniqueOrThrow({ where: { id: first.id } })).destinationsCheckedAt).toEqual(
      new Date(startedAt - HOUR_MS),
    );

    // A verdict about a destination the domain no longer holds blocks nothing.
    await setDestinations(owner, first.id, { root_destination: "https://example.com/new-root" });
    expect(await stopServingDestination(first.id, "root", "https://example.com/root", "stale verdict", new Date(now))).toBe(
      false,
    );
    expect(await visit("/", { host: first.hostname })).toMatchObject({
      status: 302,
      headers: { Location: "https://example.com/new-root" },
    });
  });
});

describe("GET /api/cron/recheck", () => {
  afterEach(() => {
    delete process.env.CRON_SECRET;
    resetConfig();
  });

  function configureCronSecret(): void {
    process.env.CRON_SECRET = CRON_SECRET;
    resetConfig();
  }

  it("answers 503 when CRON_SECRET is not set", async () => {
    const response = await call("GET", "/api/cron/recheck", { token: CRON_SECRET });
    expect(response.status).toBe(503);
    expect(response.body.error).toMatch(/CRON_SECRET/);
  });

  it.each([
    ["no Authorization header", {}],
    ["a wrong secret", { token: "not-the-cron-secret-at-all" }],
    ["the right secret with another scheme", { headers: { authorization: `Basic ${CRON_SECRET}` } }],
  ])("refuses %s with 401 and runs nothing", async (_label, options) => {
    configureCronSecret();
    const link = await createLink();
    const response = await call("GET", "/api/cron/recheck", options);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: expect.any(String) });
    expect((await stored(link.id)).lastCheckedAt).toBeNull();
  });

  it("runs the re-check with the right secret and answers the counts", async () => {
    configureCronSecret();
    const link = await createLink();
    const response = await call("GET", "/api/cron/recheck", { token: CRON_SECRET });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(totals(1, 0, 0));
    expect((await stored(link.id)).cleanChecks).toBe(1);
  });
});
