import { scanBuffer } from "@/lib/analytics/scans";
import { db } from "@/lib/db/client";
import { resetResolutionRuntime } from "@/lib/resolution/runtime";
import { runWebhookDeliveries } from "@/lib/webhooks/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newUser, type TestUser } from "../support/api";
import { useTestBlocklist } from "../support/blocklist";
import { createLink, editLink, linkEditWorld, listenTo } from "../support/link-edit-world";
import { visit } from "../support/visits";

const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const ANDROID =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36";
const WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

/** Addresses GeoLite2 (geoip-country's database) places in Australia and the United Kingdom. */
const AU_ADDRESS = "203.2.218.214";
const GB_ADDRESS = "81.2.69.142";
/** The socket's peer when the suite's proxy stands in front of the front door. */
const PROXY_ADDRESS = "10.0.0.2";

const RULES = [
  { when: { country: ["au"] }, destination: "https://example.com/au" },
  { when: { os: ["ios"] }, destination: "https://EXAMPLE.com/ios" },
  { when: { device: ["mobile"], os: ["android"] }, destination: "https://example.com/android" },
  { when: { language: ["FR"] }, destination: "https://example.com/fr" },
];

const world = linkEditWorld({ TRUSTED_COUNTRY_HEADER: "x-vercel-ip-country" });
let blocklist: Awaited<ReturnType<typeof useTestBlocklist>>;

beforeAll(async () => {
  blocklist = await useTestBlocklist();
});

afterAll(() => blocklist.remove());

const DAY_MS = 24 * 60 * 60 * 1000;

const createHomeLink = (user: TestUser) => createLink(user, "https://example.com/home");

function setRules(user: TestUser, id: string, rules: unknown) {
  return editLink(user, id, { rules });
}

async function release(id: string) {
  await db().link.update({ where: { id }, data: { status: 0 } });
  resetResolutionRuntime();
}

describe("routing rules", () => {
  it("are set in order, normalised, shown in the Link view, and put the link back in quarantine", async () => {
    const user = await newUser("rules");
    const link = await createHomeLink(user);
    await release(link.id);
    const set = await setRules(user, link.id, RULES);
    expect(set.status, set.text).toBe(200);
    expect(set.body.status).toBe(1);
    expect(set.body.rules).toEqual([
      { when: { country: ["AU"] }, destination: "https://example.com/au" },
      { when: { os: ["ios"] }, destination: "https://example.com/ios" },
      { when: { device: ["mobile"], os: ["android"] }, destination: "https://example.com/android" },
      { when: { language: ["fr"] }, destination: "https://example.com/fr" },
    ]);
    expect((await call("GET", `/api/links/${link.id}`, { token: user.token })).body.rules).toHaveLength(4);

    const removed = await setRules(user, link.id, []);
    expect(removed.body.rules).toEqual([]);
  });

  it("send each visit where the first matching rule says, else to the link's own destination", async () => {
    const user = await newUser("rules-visits");
    const link = await createHomeLink(user);
    await setRules(user, link.id, RULES);
    const cases: [Record<string, string>, string][] = [
      [{ "X-Vercel-IP-Country": "AU", "User-Agent": IPHONE }, "https://example.com/au"],
      [{ "X-Vercel-IP-Country": "NZ", "User-Agent": IPHONE }, "https://example.com/ios"],
      [{ "User-Agent": ANDROID }, "https://example.com/android"],
      [{ "User-Agent": WINDOWS, "Accept-Language": "fr-FR,fr;q=0.9,en;q=0.8" }, "https://example.com/fr"],
      [{ "User-Agent": WINDOWS, "Accept-Language": "en-GB,en;q=0.9,fr;q=0.8" }, "https://example.com/home"],
      [{}, "https://example.com/home"],
    ];
    for (const [headers, location] of cases) {
      const answer = await visit(`/${link.slug}`, { headers });
      expect([headers, answer.status, answer.headers.Location]).toEqual([headers, 302, location]);
    }
    await scanBuffer().flush();
    const served = await db().scanEvent.findMany({
      where: { linkId: link.id },
      orderBy: { id: "asc" },
      select: { servedRule: true },
    });
    expect(served.map((row) => row.servedRule)).toEqual([0, 1, 2, 3, null, null]);

    const report = await call("GET", `/api/analytics?link_id=${link.id}&group_by=served`, { token: user.token });
    expect(report.status, report.text).toBe(200);
    expect(Object.fromEntries(report.body.data.map((row: { key: string; scans: number }) => [row.key, row.scans]))).toEqual({
      default: 2,
      "rule:0": 1,
      "rule:1": 1,
      "rule:2": 1,
      "rule:3": 1,
    });
  });

  it("match a country by the visitor's address when no trusted header names one: the country analytics records", async () => {
    const user = await newUser("rules-address");
    const link = await createHomeLink(user);
    await setRules(user, link.id, [RULES[0]]);
    const cases: [Record<string, string>, string, string][] = [
      [{}, AU_ADDRESS, "https://example.com/au"],
      [{}, GB_ADDRESS, "https://example.com/home"],
      [{ "X-Vercel-IP-Country": "GB" }, AU_ADDRESS, "https://example.com/home"],
      // The suite's proxy in front of the front door (tests/support/per-file-setup.ts) saw GB; the client wrote AU before it.
      [{ "X-Forwarded-For": `${AU_ADDRESS}, ${GB_ADDRESS}` }, PROXY_ADDRESS, "https://example.com/home"],
    ];
    for (const [headers, peer, location] of cases) {
      const answer = await visit(`/${link.slug}`, { headers, peer });
      expect([headers, peer, answer.headers.Location]).toEqual([headers, peer, location]);
    }
    await scanBuffer().flush();
    const scans = await db().scanEvent.findMany({
      where: { linkId: link.id },
      orderBy: { id: "asc" },
      select: { country: true, servedRule: true },
    });
    expect(scans).toEqual([
      { country: "AU", servedRule: 0 },
      { country: "GB", servedRule: null },
      { country: "GB", servedRule: null },
      { country: "GB", servedRule: null },
    ]);
  });

  it("move the whole link to abuse when a quarantined link's visit is sent to a rule's destination found malicious", async () => {
    const user = await newUser("rules-malicious");
    const link = await createHomeLink(user);
    const domain = `rule-phish-${Date.now()}.example.com`;
    await setRules(user, link.id, [{ when: { language: ["fr"] }, destination: `https://${domain}/connexion` }]);
    expect((await visit(`/${link.slug}`, { headers: { "Accept-Language": "fr" } })).status).toBe(302);
    await blocklist.add(domain, "phishing");
    resetResolutionRuntime(); // past the verdict cache, as a later visit would be

    const french = await visit(`/${link.slug}`, { headers: { "Accept-Language": "fr" } });
    expect(french.status).toBe(403);
    expect(french.body).toMatch(/Rule 1&#39;s destination: .*blocklist: phishing/);
    expect((await visit(`/${link.slug}`)).status).toBe(403);
    expect(await db().link.findUniqueOrThrow({ where: { id: link.id } })).toMatchObject({
      status: 2,
      abuseReason: expect.stringMatching(/^Rule 1's destination: /),
    });
  });

  it("never release a quarantined link on visits no rule sends to a rule's destination found malicious", async () => {
    const user = await newUser("rules-cloaked");
    const link = await createHomeLink(user);
    const domain = `rule-cloak-${Date.now()}.example.com`;
    await setRules(user, link.id, [{ when: { language: ["fr"] }, destination: `https://${domain}/connexion` }]);
    await blocklist.add(domain, "phishing");
    resetResolutionRuntime();

    // Only visitors the rule does not send anywhere: each visit a day apart would count a clean check.
    for (let day = 1; day <= 8; day++) {
      world.now += DAY_MS;
      await visit(`/${link.slug}`);
    }
    expect(await db().link.findUniqueOrThrow({ where: { id: link.id } })).toMatchObject({
      status: 2,
      abuseReason: expect.stringMatching(/^Rule 1's destination: .*blocklist: phishing/),
    });
  });

  it("refuse an internal or unsafe rule destination with 422 naming the rule, and change nothing", async () => {
    const user = await newUser("rules-refused");
    const link = await createHomeLink(user);
    for (const destination of ["http://127.0.0.1/admin", "http://169.254.169.254/latest/meta-data", "http://[::1]/"]) {
      const refused = await setRules(user, link.id, [RULES[0], { when: { os: ["ios"] }, destination }]);
      expect([destination, refused.status]).toEqual([destination, 422]);
      expect(refused.body.error).toMatch(/^rules\[1\]\.destination: /);
    }
    expect((await call("GET", `/api/links/${link.id}`, { token: user.token })).body.rules).toEqual([]);
  });

  it("refuse malformed rules with 400: too many, no condition, unknown values", async () => {
    const user = await newUser("rules-invalid");
    const link = await createHomeLink(user);
    const many = Array.from({ length: 21 }, () => RULES[0]);
    for (const rules of [
      many,
      [{ when: {}, destination: "https://example.com/x" }],
      [{ when: { device: ["phone"] }, destination: "https://example.com/x" }],
      [{ when: { country: ["AUS"] }, destination: "https://example.com/x" }],
      [{ when: { language: ["fr-CA"] }, destination: "https://example.com/x" }],
      [{ when: { os: ["ios"] }, destination: "ftp://example.com/x" }],
    ]) {
      const refused = await setRules(user, link.id, rules);
      expect([JSON.stringify(rules).slice(0, 80), refused.status]).toEqual([JSON.stringify(rules).slice(0, 80), 400]);
      expect(refused.body.error).toEqual(expect.any(String));
    }
    expect(
      (
        await setRules(
          user,
          link.id,
          Array.from({ length: 20 }, () => RULES[0]),
        )
      ).status,
    ).toBe(200);
  });

  it("announce a change of rules as link.updated, and no message when the rules are the same", async () => {
    const user = await newUser("rules-hooks");
    await listenTo(world, user, ["link.updated"]);
    const link = await createHomeLink(user);
    await setRules(user, link.id, RULES);
    await setRules(user, link.id, RULES);
    while ((await runWebhookDeliveries()).attempted > 0);
    expect(world.receiver.unverified).toBe(0);
    expect(world.receiver.received.map((message) => message.type)).toEqual(["link.updated"]);
    expect(world.receiver.received[0]!.data).toMatchObject({
      id: link.id,
      rules: [{ destination: "https://example.com/au" }, {}, {}, {}],
    });
  });
});
