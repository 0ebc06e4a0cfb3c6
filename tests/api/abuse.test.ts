import { abuseQueueSchema, type AbuseQueueEntry } from "@/lib/abuse/schemas";
import { REPORT_CHECK_INTERVAL_MS } from "@/lib/abuse/service";
import { setClock } from "@/lib/clock";
import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { MIGRATIONS_DIR, migrate } from "@/lib/db/migrate";
import { newId } from "@/lib/db/random";
import { randomBytes } from "node:crypto";
import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { call, newUser, type TestUser } from "../support/api";
import { useTestBlocklist } from "../support/blocklist";
import { adminQuery, withDatabase } from "../support/database";
import { TEST_ZONE } from "../support/dns-server";
import { startFakeDnsServer, type FakeDnsRecord, type FakeDnsServer } from "../support/fake-dns-server";
import { visit } from "../support/visits";

const OPERATOR_TOKEN = "operator-token-for-the-tests-0123456789";
const SHORT_BASE = "http://s.test.example";

let blocklist: Awaited<ReturnType<typeof useTestBlocklist>>;
/** This file's own DNS server, so a test can turn a destination's name bad and count lookups. */
let dns: FakeDnsServer;
const dnsZone: Record<string, FakeDnsRecord> = {};
const suiteDnsResolver = process.env.DNS_RESOLVER;
let networkCounter = 0;
let linkCounter = 0;

/** An address in an IPv4 /24 no other report in this file has used: each call is a new reporter. */
function newNetwork(): string {
  networkCounter += 1;
  return `198.${18 + (networkCounter >> 8)}.${networkCounter & 255}.${(networkCounter % 250) + 1}`;
}

type Link = { id: string; slug: string; short_url: string; destination: string };

async function createLink(owner?: TestUser, body: Record<string, unknown> = {}): Promise<Link> {
  const { token } = owner ?? (await newUser());
  const response = await call("POST", "/api/links", {
    token,
    body: { destination: `https://example.com/abuse/${++linkCounter}`, ...body },
  });
  expect(response.status, response.text).toBe(201);
  return response.body as Link;
}

/** A link on a name only this file's DNS server knows, resolving to a public address until a test says otherwise. */
async function createLinkOnOwnName(owner?: TestUser): Promise<{ link: Link; name: string }> {
  const name = `reported-${++linkCounter}-${Date.now()}.example.org`;
  return { link: await createLink(owner, { destination: `https://${name}/page` }), name };
}

function report(body: unknown, address = newNetwork(), headerName = "x-forwarded-for") {
  return call("POST", "/api/abuse-reports", { body, headers: { [headerName]: address } });
}

function setStatus(id: string, body: unknown, token = OPERATOR_TOKEN) {
  return call("PUT", `/api/operator/links/${id}/status`, { token, body });
}

function queuePage(query = "", options: { token?: string } = { token: OPERATOR_TOKEN }) {
  return call("GET", `/api/operator/abuse-reports${query}`, options);
}

/** The whole queue, page by page, each page checked against the documented schema. */
async function wholeQueue(pageSize = 100): Promise<AbuseQueueEntry[]> {
  const entries: AbuseQueueEntry[] = [];
  let cursor: string | null = null;
  do {
    const response = await queuePage(`?limit=${pageSize}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(response.status, response.text).toBe(200);
    const page = abuseQueueSchema.parse(response.body);
    entries.push(...page.links);
    cursor = page.next_cursor;
  } while (cursor);
  return entries;
}

async function queueEntry(linkId: string): Promise<AbuseQueueEntry | undefined> {
  return (await wholeQueue()).find((entry) => entry.link.id === linkId);
}

const stored = (id: string) => db().link.findUniqueOrThrow({ where: { id } });

/** Reports the link once from each of `count` networks never used before. */
async function reportFromNewNetworks(link: Link, count: number, reason = "phishing"): Promise<void> {
  for (let i = 0; i < count; i++) expect((await report({ url: link.short_url, reason })).status).toBe(202);
}

/** Moves the process clock `offsetMs` ahead of the real one (for the rules that count time). */
function moveClock(offsetMs: number): void {
  setClock({ now: () => Date.now() + offsetMs });
}

/** Stops the process clock at `at`, for report times a test compares exactly. */
function stopClockAt(at: number): void {
  setClock({ now: () => at });
}

beforeAll(async () => {
  dns = await startFakeDnsServer(dnsZone, { a: [TEST_ZONE.publicAddress] });
  process.env.DNS_RESOLVER = dns.resolver;
  process.env.OPERATOR_TOKEN = OPERATOR_TOKEN;
  blocklist = await useTestBlocklist();
});

afterEach(() => setClock(undefined));

afterAll(async () => {
  delete process.env.OPERATOR_TOKEN;
  process.env.DNS_RESOLVER = suiteDnsResolver;
  blocklist.remove();
  await dns.close();
});

describe("POST /api/abuse-reports", () => {
  it.each([
    ["an unknown field", { url: `${SHORT_BASE}/Abc2345`, reason: "spam", name: "x" }, /does not accept: name/],
    ["a missing url", { reason: "spam" }, /"url"/],
    ["a url that is not a URL", { url: "not a url", reason: "spam" }, /"url"/],
    ["a url with another scheme", { url: "ftp://s.test.example/Abc2345", reason: "spam" }, /"url"/],
    ["an unknown reason", { url: `${SHORT_BASE}/Abc2345`, reason: "rude" }, /"reason"/],
    ["details over 2000 characters", { url: `${SHORT_BASE}/Abc2345`, reason: "other", details: "x".repeat(2001) }, /"details"/],
    [
      "a NUL byte in details",
      { url: `${SHORT_BASE}/Abc2345`, reason: "other", details: "a\u0000b" },
      /"details".*control characters/,
    ],
    ["contact over 320 characters", { url: `${SHORT_BASE}/Abc2345`, reason: "other", contact: "x".repeat(321) }, /"contact"/],
    [
      "a line break in contact",
      { url: `${SHORT_BASE}/Abc2345`, reason: "other", contact: "me@example.net\nBcc: x" },
      /"contact".*control characters/,
    ],
  ])("refuses %s with 400", async (_label, body, message) => {
    const response = await report(body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(message);
  });

  it.each([
    ["an unknown slug", `${SHORT_BASE}/Unknown9`],
    ["a path of two segments", `${SHORT_BASE}/api/links`],
    ["an unknown host", "https://elsewhere.example.org/Abc2345"],
  ])("answers 404 for %s", async (_label, url) => {
    const response = await report({ url, reason: "spam" });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: expect.any(String) });
  });

  it("accepts a report with 202 and stores it, keeping line breaks in the details, without changing the link", async () => {
    const link = await createLink();
    const details = 'Sent to me by text message:\n\t"your parcel is waiting"';
    const response = await report({ url: link.short_url, reason: "spam", details, contact: "me@example.net" });
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ received: true });
    expect(await db().abuseReport.findMany({ where: { linkId: link.id } })).toEqual([
      expect.objectContaining({
        reason: "spam",
        details,
        contact: "me@example.net",
        reporterHash: expect.stringMatching(/^[0-9a-f]{64}$/),
        reviewedAt: null,
      }),
    ]);
    expect((await stored(link.id)).status).toBe(1);
  });

  it("never changes a link's status, however many networks report it: visitors are still redirected and the owner can repoint", async () => {
    const owner = await newUser();
    const link = await createLink(owner);
    expect((await setStatus(link.id, { status: 0 })).status).toBe(200);

    await reportFromNewNetworks(link, 12);

    expect(await stored(link.id)).toMatchObject({ status: 0, abuseReason: null });
    const visited = await visit(`/${link.slug}`);
    expect(visited.status).toBe(302);
    expect(visited.headers.Location).toBe(link.destination);
    expect((await queueEntry(link.id))?.reporters).toBe(12);
    const repointed = await call("PATCH", `/api/links/${link.id}`, {
      token: owner.token,
      body: { destination: "https://example.com/abuse/moved" },
    });
    expect(repointed.status, repointed.text).toBe(200);
    expect(repointed.body).toMatchObject({ destination: "https://example.com/abuse/moved", status: 1 });
  });

  it("counts the same network once, however often and from however many of its addresses it reports", async () => {
    const link = await createLink();
    const addresses = ["203.0.113.4", "203.0.113.99", "::ffff:203.0.113.250", "::ffff:cb00:7101"];
    for (const [index, address] of addresses.entries()) {
      expect((await report({ url: link.short_url, reason: index % 2 ? "spam" : "phishing" }, address)).status).toBe(202);
    }
    expect(await db().abuseReport.count({ where: { linkId: link.id } })).toBe(1);
    expect((await stored(link.id)).status).toBe(1);
  });

  it("counts many addresses inside one IPv6 /64 as one reporter, with one rate limit", async () => {
    const link = await createLink();
    const inOneSlash64 = Array.from(
      { length: 11 },
      (_, i) =>
        `2001:db8:77:${(linkCounter % 65535).toString(16)}:${i.toString(16)}:${((i * 7919) & 0xffff).toString(16)}::${i + 1}`,
    );
    for (const address of inOneSlash64.slice(0, 10)) {
      expect((await report({ url: link.short_url, reason: "malware" }, address, "x-real-ip")).status).toBe(202);
    }
    expect((await report({ url: link.short_url, reason: "malware" }, inOneSlash64[10], "x-real-ip")).status).toBe(429);

    expect(await db().abuseReport.count({ where: { linkId: link.id } })).toBe(1);
    expect((await queueEntry(link.id))?.reporters).toBe(1);
    expect((await stored(link.id)).status).toBe(1);

    const neighbour = `2001:db8:77:${((linkCounter % 65535) + 1).toString(16)}::1`;
    expect((await report({ url: link.short_url, reason: "malware" }, neighbour, "x-real-ip")).status).toBe(202);
    expect((await queueEntry(link.id))?.reporters).toBe(2);
  });

  it("blocks at once when the live check finds the destination on the blocklist, with the same answer as any report", async () => {
    const clean = await createLink();
    const cleanAnswer = await report({ url: clean.short_url, reason: "phishing" });
    const domain = `reported-${Date.now()}.example.com`;
    const link = await createLink(undefined, { destination: `https://${domain}/login` });
    await blocklist.add(domain, "phishing");

    const response = await report({ url: link.short_url, reason: "phishing" });

    expect(await stored(link.id)).toMatchObject({ status: 2, abuseReason: expect.stringMatching(/blocklist.*phishing/) });
    expect((await visit(`/${link.slug}`)).status).toBe(403);
    expect((await stored(clean.id)).status).toBe(1);
    // Every answer carries its own X-Request-Id, whatever the outcome; everything else must match.
    const headersOf = (answer: typeof response) =>
      Object.fromEntries([...answer.headers].filter(([name]) => name !== "x-request-id"));
    expect([response.status, response.text, headersOf(response)]).toEqual([
      cleanAnswer.status,
      cleanAnswer.text,
      headersOf(cleanAnswer),
    ]);
    expect(response.body).toEqual({ received: true });
  });

  it("blocks when the destination's name now resolves to an internal address", async () => {
    const { link, name } = await createLinkOnOwnName();
    dnsZone[name] = { a: ["10.0.0.9"] };

    expect((await report({ url: link.short_url, reason: "other" })).status).toBe(202);

    expect(await stored(link.id)).toMatchObject({ status: 2, abuseReason: expect.stringMatching(/dns: policy/) });
  });

  it("checks every destination the link holds: a rule's on the blocklist blocks the whole link", async () => {
    const owner = await newUser("abuse-rules");
    const link = await createLink(owner);
    const domain = `reported-rule-${Date.now()}.example.com`;
    const rules = [{ when: { device: ["mobile"] }, destination: `https://${domain}/login` }];
    expect((await call("PATCH", `/api/links/${link.id}`, { token: owner.token, body: { rules } })).status).toBe(200);
    await blocklist.add(domain, "phishing");

    expect((await report({ url: link.short_url, reason: "phishing" })).status).toBe(202);

    expect(await stored(link.id)).toMatchObject({
      status: 2,
      abuseReason: expect.stringMatching(/^Rule 1's destination: .*blocklist.*phishing/),
    });
    expect((await visit(`/${link.slug}`)).status).toBe(403);
  });

  it("never blocks on a check that cannot decide", async () => {
    const { link, name } = await createLinkOnOwnName();
    dnsZone[name] = "servfail";

    expect((await report({ url: link.short_url, reason: "malware" })).status).toBe(202);

    expect(await stored(link.id)).toMatchObject({ status: 1, abuseReason: null });
  });

  it("checks a destination at most once per link per interval, however many networks report it at once", async () => {
    const { link, name } = await createLinkOnOwnName();
    const lookupsAfterCreation = dns.queriesFor(name);

    expect((await report({ url: link.short_url, reason: "phishing" })).status).toBe(202);
    const lookupsOfOneCheck = dns.queriesFor(name) - lookupsAfterCreation;
    expect(lookupsOfOneCheck).toBeGreaterThan(0);

    const burst = await Promise.all(Array.from({ length: 10 }, () => report({ url: link.short_url, reason: "phishing" })));
    expect(burst.map((response) => response.status)).toEqual(Array(10).fill(202));
    moveClock(REPORT_CHECK_INTERVAL_MS / 2);
    dnsZone[name] = { a: ["10.0.0.9"] };
    expect((await report({ url: link.short_url, reason: "phishing" })).status).toBe(202);
    expect(dns.queriesFor(name) - lookupsAfterCreation).toBe(lookupsOfOneCheck);
    expect((await stored(link.id)).status).toBe(1);

    moveClock(REPORT_CHECK_INTERVAL_MS + 1000);
    expect((await report({ url: link.short_url, reason: "phishing" })).status).toBe(202);
    expect(dns.queriesFor(name) - lookupsAfterCreation).toBeGreaterThan(lookupsOfOneCheck);
    expect((await stored(link.id)).status).toBe(2);
  });

  it("finds a link on a custom domain by its short URL", async () => {
    const owner = await newUser();
    const hostname = `go-${owner.userId.toLowerCase()}.example.org`;
    const domain = await db().domain.create({
      data: { id: newId("dom"), workspaceId: owner.workspaceId, hostname, verifiedAt: new Date() },
    });
    const onDomain = await createLink(owner, { domain_id: domain.id, slug: "menu" });
    const onShortHost = await createLink(owner, { slug: "menu" });

    expect((await report({ url: `https://${hostname}/menu`, reason: "spam" })).status).toBe(202);

    expect(await db().abuseReport.count({ where: { linkId: onDomain.id } })).toBe(1);
    expect(await db().abuseReport.count({ where: { linkId: onShortHost.id } })).toBe(0);
  });

  it("never stores the reporter's address or network", async () => {
    const link = await createLink();
    const secrets = ["198.51.100.177", "198.51.100.0/24", "2001:db8::1:77", "2001:db8:0:0::/64"];
    await report({ url: link.short_url, reason: "malware" }, secrets[0]);
    await report({ url: link.short_url, reason: "malware" }, secrets[2], "x-real-ip");
    expect(await db().abuseReport.count({ where: { linkId: link.id } })).toBe(2);

    const tables = await db().$queryRaw<
      { name: string }[]
    >`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'`;
    for (const { name } of tables) {
      const rows = await db().$queryRawUnsafe<{ row: string }[]>(`SELECT row_to_json(t)::text AS row FROM "${name}" t`);
      for (const secret of secrets)
        expect(
          rows.filter(({ row }) => row.includes(secret)),
          name,
        ).toEqual([]);
    }
  });

  it("refuses the eleventh report a minute from one network with 429 and rate-limit headers", async () => {
    const link = await createLink();
    for (let host = 1; host <= 10; host++)
      expect((await report({ url: link.short_url, reason: "spam" }, `192.0.2.${host}`)).status).toBe(202);

    const refused = await report({ url: link.short_url, reason: "spam" }, "192.0.2.11");

    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: expect.stringMatching(/network.*limit 10 a minute/) });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("ratelimit")).toMatch(/r=0/);
    expect((await report({ url: link.short_url, reason: "spam" }, newNetwork())).status).toBe(202);
  });
});

describe("GET /api/operator/abuse-reports", () => {
  it.each([
    ["no Authorization header", undefined],
    ["a wrong token", "operator-token-for-the-tests-wrong-one"],
  ])("refuses %s with 401", async (_label, token) => {
    const response = await queuePage("", { token });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: expect.any(String) });
  });

  it("refuses a workspace's own session token", async () => {
    expect((await queuePage("", { token: (await newUser()).token })).status).toBe(401);
  });

  it("answers 503 when OPERATOR_TOKEN is not set", async () => {
    delete process.env.OPERATOR_TOKEN;
    resetConfig();
    try {
      const response = await queuePage();
      expect(response.status).toBe(503);
      expect(response.body.error).toMatch(/OPERATOR_TOKEN/);
    } finally {
      process.env.OPERATOR_TOKEN = OPERATOR_TOKEN;
      resetConfig();
    }
  });

  it.each([
    ["a limit of 0", "?limit=0", /"limit"/],
    ["a limit over 100", "?limit=101", /"limit"/],
    ["a limit that is not a number", "?limit=ten", /"limit"/],
    ["an unknown parameter", "?status=2", /does not accept: status/],
    ["a cursor this service did not issue", `?cursor=${Buffer.from("x:y:z").toString("base64url")}`, /cursor/],
  ])("refuses %s with 400", async (_label, query, message) => {
    const response = await queuePage(query);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(message);
  });

  it("lists links with pending reports, most distinct reporters first, then the most recently reported, page by page", async () => {
    // Only this test's reports are pending.
    await db().abuseReport.updateMany({ where: { reviewedAt: null }, data: { reviewedAt: new Date() } });
    const [most, least, older, newer] = [await createLink(), await createLink(), await createLink(), await createLink()];
    const startedAt = Date.now();
    let offset = 0;
    const reportAt = async (link: Link, count: number) => {
      for (let i = 0; i < count; i++) {
        offset += 1000;
        stopClockAt(startedAt + offset);
        expect((await report({ url: link.short_url, reason: "spam", details: `report ${offset / 1000}` })).status).toBe(202);
      }
    };
    await reportAt(most, 3);
    await reportAt(older, 2);
    await reportAt(newer, 2);
    await reportAt(least, 1);

    const firstPage = await queuePage("?limit=1");
    expect(firstPage.status).toBe(200);
    expect(firstPage.body.links.map((entry: AbuseQueueEntry) => entry.link.id)).toEqual([most.id]);
    expect(firstPage.body.next_cursor).toEqual(expect.any(String));
    const pagedOneByOne = await wholeQueue(1);
    expect(pagedOneByOne.map((entry) => entry.link.id)).toEqual([most.id, newer.id, older.id, least.id]);
    expect(pagedOneByOne.map((entry) => entry.reporters)).toEqual([3, 2, 2, 1]);
    expect((await wholeQueue(3)).map((entry) => entry.link.id)).toEqual([most.id, newer.id, older.id, least.id]);

    const [entry] = pagedOneByOne;
    expect(entry).toEqual({
      link: {
        id: most.id,
        slug: most.slug,
        host: null,
        short_url: most.short_url,
        destination: most.destination,
        status: 1,
        abuse_reason: null,
      },
      reporters: 3,
      first_reported_at: expect.any(Number),
      last_reported_at: expect.any(Number),
      recent_reports: [3, 2, 1].map((n) => ({
        reason: "spam",
        details: `report ${n}`,
        contact: null,
        reported_at: expect.any(Number),
      })),
    });
    expect(entry!.last_reported_at - entry!.first_reported_at).toBe(2000);
    expect(entry!.recent_reports.map((pending) => pending.reported_at)).toEqual([
      entry!.last_reported_at,
      entry!.last_reported_at - 1000,
      entry!.first_reported_at,
    ]);
  });

  it("shows only the ten most recent reports of a link, and counts them all", async () => {
    const link = await createLink();
    const startedAt = Date.now();
    for (let i = 1; i <= 12; i++) {
      stopClockAt(startedAt + i * 1000);
      expect(
        (
          await report({
            url: link.short_url,
            reason: i % 2 ? "phishing" : "malware",
            details: `report ${i}`,
            contact: `reporter-${i}@example.net`,
          })
        ).status,
      ).toBe(202);
    }

    const entry = await queueEntry(link.id);

    expect(entry?.reporters).toBe(12);
    expect(entry?.recent_reports.map((pending) => pending.details)).toEqual(
      [12, 11, 10, 9, 8, 7, 6, 5, 4, 3].map((n) => `report ${n}`),
    );
    expect(entry?.recent_reports[0]).toMatchObject({ reason: "malware", contact: "reporter-12@example.net" });
  });
});

describe("PUT /api/operator/links/{id}/status", () => {
  it.each([
    ["no Authorization header", undefined],
    ["a wrong token", "operator-token-for-the-tests-wrong-one"],
    ["a token of another length", "short"],
  ])("refuses %s with 401 and changes nothing", async (_label, token) => {
    const link = await createLink();
    const response = await call("PUT", `/api/operator/links/${link.id}/status`, { token, body: { status: 2, reason: "spam" } });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: expect.any(String) });
    expect((await stored(link.id)).status).toBe(1);
  });

  it("refuses a workspace's own session token", async () => {
    const owner = await newUser();
    const link = await createLink(owner);
    expect((await setStatus(link.id, { status: 0 }, owner.token)).status).toBe(401);
  });

  it("answers 503 when OPERATOR_TOKEN is not set", async () => {
    const link = await createLink();
    delete process.env.OPERATOR_TOKEN;
    resetConfig();
    try {
      const response = await setStatus(link.id, { status: 2, reason: "spam" });
      expect(response.status).toBe(503);
      expect(response.body.error).toMatch(/OPERATOR_TOKEN/);
    } finally {
      process.env.OPERATOR_TOKEN = OPERATOR_TOKEN;
      resetConfig();
    }
  });

  it("moves a link to abuse with a reason and back to quarantine, and visits follow at once", async () => {
    const link = await createLink();
    expect((await visit(`/${link.slug}`)).status).toBe(302);

    const blocked = await setStatus(link.id, { status: 2, reason: "Phishing page for a bank" });
    expect(blocked.status).toBe(200);
    expect(blocked.body).toEqual({ id: link.id, status: 2, abuse_reason: "Phishing page for a bank" });
    expect(await stored(link.id)).toMatchObject({ status: 2, abuseReason: "Phishing page for a bank" });
    const warning = await visit(`/${link.slug}`);
    expect(warning.status).toBe(403);
    expect(warning.body).toContain("Phishing page for a bank");

    const restored = await setStatus(link.id, { status: 1 });
    expect(restored.status).toBe(200);
    expect(restored.body).toEqual({ id: link.id, status: 1, abuse_reason: null });
    expect((await visit(`/${link.slug}`)).status).toBe(302);
  });

  it("retires the reports it reviewed; after a restore, new reports queue the link again and never re-block it", async () => {
    const link = await createLink();
    const earlyReporter = newNetwork();
    expect((await report({ url: link.short_url, reason: "phishing" }, earlyReporter)).status).toBe(202);
    await reportFromNewNetworks(link, 4);
    expect((await queueEntry(link.id))?.reporters).toBe(5);

    expect((await setStatus(link.id, { status: 2, reason: "Confirmed phishing" })).status).toBe(200);
    expect(await queueEntry(link.id)).toBeUndefined();
    expect(await db().abuseReport.count({ where: { linkId: link.id, reviewedAt: null } })).toBe(0);

    moveClock(REPORT_CHECK_INTERVAL_MS + 1000);
    expect((await setStatus(link.id, { status: 1 })).status).toBe(200);
    await reportFromNewNetworks(link, 6);
    expect((await report({ url: link.short_url, reason: "phishing" }, earlyReporter)).status).toBe(202);

    expect(await stored(link.id)).toMatchObject({ status: 1, abuseReason: null });
    expect((await visit(`/${link.slug}`)).status).toBe(302);
    const entry = await queueEntry(link.id);
    expect(entry).toMatchObject({ reporters: 7, link: { status: 1, abuse_reason: null } });
    expect(await db().abuseReport.count({ where: { linkId: link.id } })).toBe(12);
  });

  it.each([
    ["status 2 without a reason", { status: 2 }, /"reason"/],
    ["status 2 with a blank reason", { status: 2, reason: "  " }, /"reason"/],
    ["a reason with a NUL byte", { status: 2, reason: "spam\u0000" }, /"reason".*control characters/],
    ["an unknown status", { status: 3 }, /"status"/],
    ["a status as a string", { status: "2", reason: "spam" }, /"status"/],
    ["an unknown field", { status: 0, note: "x" }, /does not accept: note/],
  ])("refuses %s with 400", async (_label, body, message) => {
    const link = await createLink();
    const response = await setStatus(link.id, body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(message);
    expect((await stored(link.id)).status).toBe(1);
  });

  it("answers 404 for an unknown id", async () => {
    const response = await setStatus("lnk_doesNotExist000000", { status: 0 });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: expect.any(String) });
  });
});

describe("the abuse review migration", () => {
  const REVIEW_MIGRATION = "20261123000000_abuse_review";
  const { serverUrl, prefix, embedded } = inject("testDatabase");

  /** A fresh database migrated up to, not including, the abuse review migration. */
  async function databaseBeforeReviewMigration(): Promise<{ url: string; drop(): Promise<void> }> {
    const name = `${prefix}_abuse_${randomBytes(4).toString("hex")}`;
    await adminQuery(serverUrl, `CREATE DATABASE "${name}"`);
    const earlier = await mkdtemp(path.join(tmpdir(), "permalink-migrations-"));
    for (const entry of await readdir(MIGRATIONS_DIR)) {
      if (entry < REVIEW_MIGRATION) await cp(path.join(MIGRATIONS_DIR, entry), path.join(earlier, entry), { recursive: true });
    }
    const url = withDatabase(serverUrl, name);
    await migrate(url, earlier);
    await rm(earlier, { recursive: true, force: true });
    return { url, drop: () => adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
  }

  // The embedded database serves one database under every name, already migrated.
  it.skipIf(embedded)(
    "sends links that reports alone blocked back to quarantine, and keeps the blocks of checks and operators",
    async () => {
      const database = await databaseBeforeReviewMigration();
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        await client.query(`INSERT INTO workspaces (id, name, kind) VALUES ('wsp_m', 'Migrated', 'team')`);
        const blocked = [
          ["lnk_byReports", "Reported as abusive by 3 people; under review"],
          ["lnk_byOperator", "Phishing page for a bank"],
          ["lnk_byCheck", "listed (blocklist: phishing)"],
        ];
        for (const [id, reason] of blocked) {
          await client.query(
            `INSERT INTO links (id, workspace_id, slug, reusable, destination, status, abuse_reason, quarantined_at, clean_checks)
           VALUES ($1, 'wsp_m', $1, false, 'https://example.com/', 2, $2, now() - interval '30 days', 2)`,
            [id, reason],
          );
        }
        await client.query(
          `INSERT INTO abuse_reports (id, link_id, reason, reporter_hash) VALUES ('abr_1', ` +
            `'lnk_byReports', 'spam', 'aaaa'), ('abr_2', 'lnk_byReports', 'spam', 'bbbb')`,
        );

        expect(await migrate(database.url)).toContain(REVIEW_MIGRATION);

        const { rows } = await client.query(
          `SELECT id, status, abuse_reason, clean_checks, quarantined_at > now() - interval '1 minute' AS ` +
            `quarantined_afresh FROM links ORDER BY id`,
        );
        expect(rows).toEqual([
          {
            id: "lnk_byCheck",
            status: 2,
            abuse_reason: "listed (blocklist: phishing)",
            clean_checks: 2,
            quarantined_afresh: false,
          },
          {
            id: "lnk_byOperator",
            status: 2,
            abuse_reason: "Phishing page for a bank",
            clean_checks: 2,
            quarantined_afresh: false,
          },
          { id: "lnk_byReports", status: 1, abuse_reason: null, clean_checks: 0, quarantined_afresh: true },
        ]);
        expect((await client.query(`SELECT count(*)::int AS pending FROM abuse_reports WHERE reviewed_at IS NULL`)).rows).toEqual(
          [{ pending: 2 }],
        );
      } finally {
        await client.end();
        await database.drop();
      }
    },
  );

  it("refuses a second pending report from one reporter for one link in the database itself", async () => {
    const link = await createLink();
    const row = { linkId: link.id, reason: "spam", reporterHash: "a".repeat(64) };
    await db().abuseReport.create({ data: { id: newId("abr"), ...row } });
    await expect(db().abuseReport.create({ data: { id: newId("abr"), ...row } })).rejects.toThrow(/Unique constraint/);
    await db().abuseReport.updateMany({ where: { linkId: link.id }, data: { reviewedAt: new Date() } });
    await expect(db().abuseReport.create({ data: { id: newId("abr"), ...row } })).resolves.toMatchObject({ reviewedAt: null });
  });
});
