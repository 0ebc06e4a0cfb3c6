import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { config, resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { newId } from "@/lib/db/random";
import { refreshRuntime, useTestBlocklist } from "../support/blocklist";
import { call, newUser, type TestUser } from "../support/api";
import { visit } from "../support/visits";

const OPERATOR_TOKEN = "operator-token-for-the-tests-0123456789";
const SHORT_BASE = "http://s.test.example";

let blocklist: Awaited<ReturnType<typeof useTestBlocklist>>;
let addressCounter = 0;
let linkCounter = 0;

/** A client address no other report in this file has used. */
function newAddress(): string {
  addressCounter += 1;
  return `203.0.${Math.floor(addressCounter / 250)}.${(addressCounter % 250) + 1}`;
}

type Link = { id: string; slug: string; short_url: string };

async function createLink(owner?: TestUser, body: Record<string, unknown> = {}): Promise<Link> {
  const { token } = owner ?? (await newUser());
  const response = await call("POST", "/api/links", { token, body: { destination: `https://example.com/abuse/${++linkCounter}`, ...body } });
  expect(response.status, response.text).toBe(201);
  return response.body as Link;
}

function report(body: unknown, address = newAddress(), headerName = "x-forwarded-for") {
  return call("POST", "/api/abuse-reports", { body, headers: { [headerName]: address } });
}

function setStatus(id: string, body: unknown, token = OPERATOR_TOKEN) {
  return call("PUT", `/api/operator/links/${id}/status`, { token, body });
}

const stored = (id: string) => db().link.findUniqueOrThrow({ where: { id } });

/** Reports the link once from each of `count` addresses never used before. */
async function reportFromNewAddresses(link: Link, count: number): Promise<void> {
  for (let i = 0; i < count; i++) expect((await report({ url: link.short_url, reason: "phishing" })).status).toBe(202);
}

beforeAll(async () => {
  blocklist = await useTestBlocklist();
  process.env.OPERATOR_TOKEN = OPERATOR_TOKEN;
  refreshRuntime();
});

afterAll(() => {
  delete process.env.OPERATOR_TOKEN;
  blocklist.remove();
});

describe("POST /api/abuse-reports", () => {
  it.each([
    ["an unknown field", { url: `${SHORT_BASE}/Abc2345`, reason: "spam", name: "x" }, /does not accept: name/],
    ["a missing url", { reason: "spam" }, /"url"/],
    ["a url that is not a URL", { url: "not a url", reason: "spam" }, /"url"/],
    ["a url with another scheme", { url: "ftp://s.test.example/Abc2345", reason: "spam" }, /"url"/],
    ["an unknown reason", { url: `${SHORT_BASE}/Abc2345`, reason: "rude" }, /"reason"/],
    ["details over 2000 characters", { url: `${SHORT_BASE}/Abc2345`, reason: "other", details: "x".repeat(2001) }, /"details"/],
    ["contact over 320 characters", { url: `${SHORT_BASE}/Abc2345`, reason: "other", contact: "x".repeat(321) }, /"contact"/],
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

  it("accepts a report with 202 and stores it without blocking a clean link", async () => {
    const link = await createLink();
    const response = await report({ url: link.short_url, reason: "spam", details: "Sent to me by text message", contact: "me@example.net" });
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ received: true });
    expect(await db().abuseReport.findMany({ where: { linkId: link.id } })).toEqual([
      expect.objectContaining({ reason: "spam", details: "Sent to me by text message", contact: "me@example.net", reporterHash: expect.stringMatching(/^[0-9a-f]{64}$/) }),
    ]);
    expect((await stored(link.id)).status).toBe(1);
  });

  it("blocks the link when the third distinct reporter reports it, with the number of reporters as the reason", async () => {
    const link = await createLink();
    const [first, second, third] = [newAddress(), newAddress(), newAddress()];
    expect((await report({ url: link.short_url, reason: "phishing" }, first)).status).toBe(202);
    expect((await report({ url: link.short_url, reason: "phishing" }, `${second}, 10.0.0.1`)).status).toBe(202);
    expect((await stored(link.id)).status).toBe(1);

    const deciding = await report({ url: `${link.short_url}?qr`, reason: "phishing" }, third, "x-real-ip");

    expect(deciding.status).toBe(202);
    expect(deciding.body).toEqual({ received: true });
    expect(await stored(link.id)).toMatchObject({ status: 2, abuseReason: "Reported as abusive by 3 people; under review" });
  });

  it("counts the same reporter once, however often they report", async () => {
    const link = await createLink();
    const reporter = newAddress();
    for (const reason of ["spam", "phishing", "other"]) {
      expect((await report({ url: link.short_url, reason }, reporter)).status).toBe(202);
    }
    await report({ url: link.short_url, reason: "spam" }, newAddress());
    expect(await db().abuseReport.count({ where: { linkId: link.id } })).toBe(2);
    expect((await stored(link.id)).status).toBe(1);
  });

  it("blocks at once when the live check finds the destination malicious", async () => {
    const domain = `reported-${Date.now()}.example.com`;
    const link = await createLink(undefined, { destination: `https://${domain}/login` });
    await blocklist.add(domain, "phishing");

    const response = await report({ url: link.short_url, reason: "phishing" });

    expect(response.status).toBe(202);
    expect(response.body).toEqual({ received: true });
    expect(await stored(link.id)).toMatchObject({ status: 2, abuseReason: expect.stringMatching(/blocklist.*phishing/) });
    expect((await visit(`/${link.slug}`)).status).toBe(403);
  });

  it("finds a link on a custom domain by its short URL", async () => {
    const owner = await newUser();
    const hostname = `go-${owner.userId.toLowerCase()}.example.org`;
    const domain = await db().domain.create({ data: { id: newId("dom"), workspaceId: owner.workspaceId, hostname, verifiedAt: new Date() } });
    const onDomain = await createLink(owner, { domain_id: domain.id, slug: "menu" });
    const onShortHost = await createLink(owner, { slug: "menu" });

    expect((await report({ url: `https://${hostname}/menu`, reason: "spam" })).status).toBe(202);

    expect(await db().abuseReport.count({ where: { linkId: onDomain.id } })).toBe(1);
    expect(await db().abuseReport.count({ where: { linkId: onShortHost.id } })).toBe(0);
  });

  it("never stores the reporter's address", async () => {
    const link = await createLink();
    const addresses = ["198.51.100.177", "2001:db8::1:77"];
    await report({ url: link.short_url, reason: "malware" }, addresses[0]);
    await report({ url: link.short_url, reason: "malware" }, addresses[1], "x-real-ip");
    expect(await db().abuseReport.count({ where: { linkId: link.id } })).toBe(2);

    const tables = await db().$queryRaw<{ name: string }[]>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'`;
    for (const { name } of tables) {
      const rows = await db().$queryRawUnsafe<{ row: string }[]>(`SELECT row_to_json(t)::text AS row FROM "${name}" t`);
      for (const address of addresses) expect(rows.filter(({ row }) => row.includes(address)), name).toEqual([]);
    }
  });

  it("refuses the eleventh report a minute from one address with 429 and rate-limit headers", async () => {
    const link = await createLink();
    const address = newAddress();
    for (let i = 0; i < 10; i++) expect((await report({ url: link.short_url, reason: "spam" }, address)).status).toBe(202);

    const refused = await report({ url: link.short_url, reason: "spam" }, address);

    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: expect.stringMatching(/limit 10 a minute/) });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("ratelimit")).toMatch(/r=0/);
    expect((await report({ url: link.short_url, reason: "spam" }, newAddress())).status).toBe(202);
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

  it("counts only reports made after the operator's last decision toward the next block", async () => {
    const link = await createLink();
    const threshold = config().ABUSE_REPORT_THRESHOLD;
    await reportFromNewAddresses(link, threshold);
    expect((await stored(link.id)).status).toBe(2);

    expect((await setStatus(link.id, { status: 1 })).status).toBe(200);
    expect(await db().abuseReport.count({ where: { linkId: link.id, reviewedAt: null } })).toBe(0);
    await reportFromNewAddresses(link, 1);
    expect((await stored(link.id)).status).toBe(1);

    await reportFromNewAddresses(link, threshold - 1);
    expect(await stored(link.id)).toMatchObject({ status: 2, abuseReason: `Reported as abusive by ${threshold} people; under review` });
  });

  it.each([
    ["status 2 without a reason", { status: 2 }, /"reason"/],
    ["status 2 with a blank reason", { status: 2, reason: "  " }, /"reason"/],
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
