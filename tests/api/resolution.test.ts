import { scanBuffer } from "@/lib/analytics/scans";
import { setClock } from "@/lib/clock";
import { db } from "@/lib/db/client";
import { newId, randomString } from "@/lib/db/random";
import { SLUG_ALPHABET } from "@/lib/links/slugs";
import { resetResolutionRuntime } from "@/lib/resolution/runtime";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, newUser, type TestUser } from "../support/api";
import { TEST_ZONE } from "../support/dns-server";
import { visit } from "../support/visits";

const DAY = 24 * 60 * 60 * 1000;
const HOUR = 60 * 60 * 1000;
let now = Date.UTC(2026, 10, 1, 9);

async function createLink(user: TestUser, destination: string, slug?: string) {
  const response = await call("POST", "/api/links", { token: user.token, body: { destination, ...(slug && { slug }) } });
  expect(response.status).toBe(201);
  return response.body as { id: string; slug: string; status: number };
}

async function statusOf(id: string) {
  return db().link.findUniqueOrThrow({ where: { id }, select: { status: true, cleanChecks: true, abuseReason: true } });
}

beforeEach(() => {
  now = Date.UTC(2026, 10, 1, 9);
  setClock({ now: () => now });
  resetResolutionRuntime();
});

afterEach(() => setClock(undefined));

describe("a visit", () => {
  it("redirects with 302 and headers that keep no copy of the destination", async () => {
    const link = await createLink(await newUser(), "https://example.com/menu");
    const answer = await visit(`/${link.slug}`);
    expect(answer.status).toBe(302);
    expect(answer.headers).toMatchObject({
      Location: "https://example.com/menu",
      "Cache-Control": "no-store",
      "X-Robots-Tag": "noindex",
      "Referrer-Policy": "strict-origin-when-cross-origin",
    });
    expect(answer.body).toBe("https://example.com/menu");
  });

  it("passes the short URL's query on; the destination's own parameters win, qr is consumed", async () => {
    const link = await createLink(await newUser(), "https://example.com/menu?lang=en&x=1");
    const answer = await visit(`/${link.slug}?lang=fr&utm_source=poster&qr=1`);
    expect(answer.headers.Location).toBe("https://example.com/menu?lang=en&x=1&utm_source=poster");
  });

  it("answers an unknown slug with a 404 page, and HEAD with the same headers and no body", async () => {
    const get = await visit("/NoSuchCode");
    expect(get.status).toBe(404);
    expect(get.headers["Content-Type"]).toMatch(/text\/html/);
    expect(get.body).toContain("does not exist");
    expect(get.body).not.toContain("NoSuchCode");
    const head = await visit("/NoSuchCode", { method: "HEAD" });
    expect(head.status).toBe(404);
    expect(head.headers).toEqual(get.headers);
    expect(head.body).toBe("");
  });

  it("resolves a custom slug created after a visit found it unknown (the cached miss is dropped)", async () => {
    const slug = `soon-${randomString(SLUG_ALPHABET, 6)}`;
    expect((await visit(`/${slug}`)).status).toBe(404);
    await createLink(await newUser(), "https://example.com/later", slug);
    expect((await visit(`/${slug}`)).headers.Location).toBe("https://example.com/later");
  });

  it("keeps resolving an archived link, and follows a repoint on the next visit", async () => {
    const user = await newUser();
    const link = await createLink(user, "https://example.com/old");
    expect((await visit(`/${link.slug}`)).headers.Location).toBe("https://example.com/old");
    await call("PATCH", `/api/links/${link.id}`, { token: user.token, body: { destination: "https://example.com/new" } });
    expect((await visit(`/${link.slug}`)).headers.Location).toBe("https://example.com/new");
    await call("DELETE", `/api/links/${link.id}`, { token: user.token });
    expect((await visit(`/${link.slug}`)).headers.Location).toBe("https://example.com/new");
  });

  it("never redirects a link in abuse: a 403 warning page that names the reason and does not link on", async () => {
    const link = await createLink(await newUser(), "https://example.com/shady");
    await db().link.update({ where: { id: link.id }, data: { status: 2, abuseReason: "phishing reported by its target" } });
    const answer = await visit(`/${link.slug}`);
    expect(answer.status).toBe(403);
    expect(answer.headers.Location).toBeUndefined();
    expect(answer.body).toContain("phishing reported by its target");
    expect(answer.body).not.toContain("example.com/shady");
    expect(answer.body).not.toMatch(/<a\s/);
  });

  it("resolves on a verified custom domain, and only the links made for it", async () => {
    const user = await newUser();
    const hostname = `go-${user.userId.toLowerCase()}.example.org`;
    const domain = await db().domain.create({
      data: { id: newId("dom"), workspaceId: user.workspaceId, hostname, verifiedAt: new Date() },
    });
    const slug = `menu-${randomString(SLUG_ALPHABET, 6)}`;
    const onDomain = await call("POST", "/api/links", {
      token: user.token,
      body: { destination: "https://example.com/d", slug, domain_id: domain.id },
    });
    expect(onDomain.status).toBe(201);
    const { forgetVerifiedHosts } = await import("@/lib/domains/verified-hosts");
    forgetVerifiedHosts();
    expect((await visit(`/${slug}`, { host: hostname })).headers.Location).toBe("https://example.com/d");
    expect((await visit(`/${slug}`)).status).toBe(404);
  });

  it("records a scan event after the response, with host, agent, referrer host, country and QR origin", async () => {
    const link = await createLink(await newUser(), "https://example.com/scan");
    const phone =
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) " +
      "Version/17.5 Mobile/15E148 Safari/604.1";
    // No TRUSTED_COUNTRY_HEADER: the edge header is ignored and the country comes from the address.
    await visit(`/${link.slug}?qr=1`, {
      headers: {
        "User-Agent": phone,
        Referer: "https://poster.example/menu?table=4",
        "X-Vercel-IP-Country": "FR",
        "X-Forwarded-For": "203.2.218.214",
      },
    });
    await visit(`/${link.slug}`);
    await scanBuffer().flush();
    const events = await db().scanEvent.findMany({ where: { linkId: link.id }, orderBy: { id: "asc" } });
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({
      host: "s.test.example",
      userAgent: phone,
      referrerHost: "poster.example",
      country: "AU",
      viaQr: true,
      device: "mobile",
      bot: false,
    });
    expect(events[0]!.occurredAt.getTime()).toBe(now);
    expect(events[1]).toMatchObject({ viaQr: false, userAgent: null, country: null });
  });
});

describe("quarantine", () => {
  it("counts clean checks only when spaced an hour apart, and releases at day 7, not before", async () => {
    const link = await createLink(await newUser(), "https://example.com/quarantined");
    await visit(`/${link.slug}`);
    await visit(`/${link.slug}`);
    now += 10 * 60 * 1000;
    await visit(`/${link.slug}`);
    expect((await statusOf(link.id)).cleanChecks).toBe(1);
    for (let i = 0; i < 4; i++) {
      now += HOUR;
      await visit(`/${link.slug}`);
    }
    expect(await statusOf(link.id)).toMatchObject({ status: 1, cleanChecks: 5 });
    now = Date.UTC(2026, 10, 1, 9) + 7 * DAY - HOUR;
    await visit(`/${link.slug}`);
    expect((await statusOf(link.id)).status).toBe(1);
    now += HOUR + 1000;
    const answer = await visit(`/${link.slug}`);
    expect(answer.status).toBe(302);
    expect((await statusOf(link.id)).status).toBe(0);
  });

  it("counts one check, and releases once, under concurrent visits", async () => {
    const link = await createLink(await newUser(), "https://example.com/busy");
    await db().link.update({
      where: { id: link.id },
      data: { cleanChecks: 2, lastCountedCheckAt: new Date(now - 2 * HOUR), quarantinedAt: new Date(now - 8 * DAY) },
    });
    const answers = await Promise.all(Array.from({ length: 25 }, () => visit(`/${link.slug}`)));
    expect(answers.every((answer) => answer.status === 302)).toBe(true);
    expect(await statusOf(link.id)).toMatchObject({ status: 0, cleanChecks: 3 });
  });

  it("starts quarantine afresh on a repoint: a week-old released link earns its release again", async () => {
    const user = await newUser();
    const link = await createLink(user, "https://example.com/harmless");
    await db().link.update({
      where: { id: link.id },
      data: { status: 0, cleanChecks: 3, lastCountedCheckAt: new Date(now - 2 * HOUR), quarantinedAt: new Date(now - 8 * DAY) },
    });
    await call("PATCH", `/api/links/${link.id}`, { token: user.token, body: { destination: "https://example.com/new-target" } });
    expect(await db().link.findUniqueOrThrow({ where: { id: link.id } })).toMatchObject({
      status: 1,
      cleanChecks: 0,
      lastCountedCheckAt: null,
      quarantinedAt: new Date(now),
    });
    for (let i = 0; i < 3; i++) {
      now += HOUR;
      await visit(`/${link.slug}`);
    }
    expect(await statusOf(link.id)).toMatchObject({ status: 1, cleanChecks: 3 });
  });

  it("fails open on an unknown verdict and does not count it", async () => {
    const link = await createLink(await newUser(), `https://${TEST_ZONE.missingName}/promo`);
    const answer = await visit(`/${link.slug}`);
    expect(answer.status).toBe(302);
    expect((await statusOf(link.id)).cleanChecks).toBe(0);
  });

  it("moves a link to abuse at once when its destination turns malicious", async () => {
    const link = await createLink(await newUser(), "https://example.com/fine");
    await db().link.update({
      where: { id: link.id },
      data: { destination: "http://malware.testing.google.test/testing/malware/" },
    });
    const answer = await visit(`/${link.slug}`);
    expect(answer.status).toBe(403);
    expect(await statusOf(link.id)).toMatchObject({ status: 2, abuseReason: expect.stringContaining("malware") });
  });

  it("does not check an active link on each visit", async () => {
    const link = await createLink(await newUser(), "https://example.com/released");
    await db().link.update({
      where: { id: link.id },
      data: { status: 0, destination: "http://malware.testing.google.test/testing/malware/" },
    });
    expect((await visit(`/${link.slug}`)).status).toBe(302);
  });
});
