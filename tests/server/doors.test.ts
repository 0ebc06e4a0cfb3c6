import { db } from "@/lib/db/client";
import { newId, randomString } from "@/lib/db/random";
import { SLUG_ALPHABET } from "@/lib/links/slugs";
import { issuePass } from "@/lib/resolution/password-gate";
import type { ResolvedLink } from "@/lib/resolution/types";
import { startApp, type RunningApp } from "@/server/app-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newUser } from "../support/api";
import { rawRequest, type RawResponse } from "../support/http";

const SHORT_HOST = "s.test.example";
// Beyond ASCII on purpose: pages escape it as numeric references, so both doors send the same ASCII bytes.
const ABUSE_REASON = "malware distribution — hameçonnage";
// Content-Length is transport: Next streams proxy answers with chunked encoding.
const COMPARED_HEADERS = [
  "location",
  "cache-control",
  "x-robots-tag",
  "referrer-policy",
  "content-type",
  "content-security-policy",
  "retry-after",
];

let front: RunningApp;
let proxy: RunningApp;
const slugs: Record<string, string> = {};
const ids: Record<string, string> = {};
let customHost = "";
let siteHost = "";
/** A pass for the protected link, signed as the doors sign one (lib/resolution/password-gate.ts). */
let pass = "";
const PASSWORD = "staff only";

async function seedLinks(): Promise<void> {
  const user = await newUser();
  const make = async (name: string, destination: string, status: number, extra: Record<string, unknown> = {}) => {
    const response = await call("POST", "/api/links", { token: user.token, body: { destination, ...extra } });
    await db().link.update({
      where: { id: response.body.id },
      data: { status, ...(status === 2 && { abuseReason: ABUSE_REASON }) },
    });
    slugs[name] = response.body.slug;
    ids[name] = response.body.id;
    return response.body.id as string;
  };
  await make("active", "https://example.com/active?ref=poster", 0);
  await make("quarantined", "https://example.com/new", 1);
  await make("abuse", "https://example.com/bad", 2);
  const archived = await make("archived", "https://example.com/archived", 0);
  await call("DELETE", `/api/links/${archived}`, { token: user.token });
  customHost = `go-${user.userId.toLowerCase()}.example.org`;
  const domain = await db().domain.create({
    data: { id: newId("dom"), workspaceId: user.workspaceId, hostname: customHost, verifiedAt: new Date() },
  });
  await make("custom", "https://example.com/custom", 0, { domain_id: domain.id, slug: `menu-${randomString(SLUG_ALPHABET, 6)}` });
  await importPrinted(user.token, PRINTED_ON_DOMAIN);
  // A second domain whose owner says where its root and its unknown codes go.
  siteHost = `site-${user.userId.toLowerCase()}.example.org`;
  const site = await db().domain.create({
    data: { id: newId("dom"), workspaceId: user.workspaceId, hostname: siteHost, verifiedAt: new Date() },
  });
  const destinations = {
    root_destination: "https://example.com/site-home",
    not_found_destination: "https://example.com/site-lost",
  };
  expect((await call("PATCH", `/api/domains/${site.id}`, { token: user.token, body: destinations })).status).toBe(200);
  await make("site", "https://example.com/site-menu", 0, { domain_id: site.id, slug: `menu-${randomString(SLUG_ALPHABET, 6)}` });
  const routed = await make("routed", "https://example.com/routed", 0);
  const rules = [
    { when: { country: ["AU"] }, destination: "https://example.com/au" },
    { when: { os: ["ios"] }, destination: "https://example.com/ios" },
    { when: { os: ["android"] }, destination: "https://example.com/android" },
    { when: { language: ["fr"] }, destination: "https://example.com/fr" },
  ];
  await call("PATCH", `/api/links/${routed}`, { token: user.token, body: { rules } });
  await db().link.update({ where: { id: routed }, data: { status: 0 } });
  for (const name of ["protected", "guessed"]) {
    const id = await make(name, `https://example.com/${name}`, 0, { title: "Staff menu", password: PASSWORD });
    if (name !== "protected") continue;
    const { passwordHash } = await db().link.findUniqueOrThrow({ where: { id } });
    pass = `permalink_pass=${issuePass({ id, passwordHash } as ResolvedLink, Date.now())}`;
  }
  const preview = { title: "Spring menu — twelve dishes", description: "From Thursday <in> every shop." };
  const previewed = await make("previewed", "https://example.com/previewed", 0, { preview });
  await db().link.update({ where: { id: previewed }, data: { previewImage: PREVIEW_IMAGE } });
  await make("previewedProtected", "https://example.com/previewed-protected", 0, { preview, password: PASSWORD });
}

/** Codes other services print and we never allocate, moved onto the custom domain by an import of Dub's export. */
const PRINTED_ON_DOMAIN: [code: string, destination: string][] = [
  ["café", "https://example.com/cafe"],
  ["구글", "https://example.com/korean"],
  ["menu.pdf", "https://example.com/menu-pdf"],
  ["deal~1", "https://example.com/deal"],
  ["2024/spring", "https://example.com/spring"],
  ["x", "https://example.com/x"],
];

async function importPrinted(token: string, codes: [string, string][]): Promise<void> {
  const rows = codes.map(
    ([code, destination], index) => `https://${customHost}/${code},${destination},0,2025-03-0${index + 1}T10:00:00.000Z,No`,
  );
  const started = await call("POST", "/api/imports", {
    token,
    rawBody: ["Short link,Destination URL,Clicks,Created at,Archived", ...rows].join("\n"),
    headers: { "content-type": "text/csv" },
  });
  for (let attempt = 0; attempt < 600; attempt++) {
    const job = await call("GET", `/api/imports/${started.body.id}`, { token });
    if (job.body.status === "done") {
      expect(job.body).toMatchObject({ created: codes.length, failed: 0 });
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the import of printed codes did not finish");
}

const onDomain = (name: string, path: string, location: string | null): Case => ({
  name,
  host: () => customHost,
  path: () => path,
  expect: (r) =>
    location === null
      ? expect(r).toMatchObject({ status: 404, body: expect.stringContaining("This short link does not exist") })
      : expect(r).toMatchObject({ status: 302, headers: { location } }),
});

/** A preview image's digest, as an upload stores it: the page names its address, which carries it. */
const PREVIEW_IMAGE = "ab12".repeat(16);
const SLACK = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)";
const IMESSAGE = "facebookexternalhit/1.1 Facebot Twitterbot/1.0";

const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const ANDROID =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36";

beforeAll(async () => {
  await seedLinks();
  const env = {
    DATABASE_URL: process.env.DATABASE_URL,
    AUTH_SECRET: process.env.AUTH_SECRET,
    DNS_RESOLVER: process.env.DNS_RESOLVER,
    BASE_URL: "http://app.test.example",
    SHORT_BASE_URL: `http://${SHORT_HOST}`,
    RECHECK_INTERVAL_SECONDS: "0",
    TRUSTED_COUNTRY_HEADER: "x-vercel-ip-country",
    // One proxy in front of each door: X-Forwarded-For's last entry before the door's own is the visitor's address.
    TRUSTED_PROXY_HOPS: "1",
  };
  [front, proxy] = await Promise.all([startApp("front", env), startApp("proxy", env)]);
  // A fresh process opens its database pool on the first lookup; on a loaded machine that can
  // outlast the lookup deadline (503), which is not what these cases compare.
  await Promise.all([front, proxy].map((app) => rawRequest(app.url, "/Warmup2", { host: SHORT_HOST })));
}, 300_000);

afterAll(async () => {
  await Promise.all([front?.stop(), proxy?.stop()]);
});

type Case = {
  name: string;
  method?: "GET" | "HEAD" | "POST";
  host?: () => string;
  headers?: Record<string, string> | (() => Record<string, string>);
  body?: string;
  path: () => string;
  expect: (response: RawResponse) => void;
};

const CASES: Case[] = [
  {
    name: "active link",
    path: () => `/${slugs.active}`,
    expect: (r) => expect(r).toMatchObject({ status: 302, headers: { location: "https://example.com/active?ref=poster" } }),
  },
  {
    name: "query passed on, destination wins",
    path: () => `/${slugs.active}?ref=flyer&utm_medium=print`,
    expect: (r) => expect(r.headers.location).toBe("https://example.com/active?ref=poster&utm_medium=print"),
  },
  {
    name: "quarantined link (live check)",
    path: () => `/${slugs.quarantined}`,
    expect: (r) => expect(r).toMatchObject({ status: 302, headers: { location: "https://example.com/new" } }),
  },
  { name: "archived link", path: () => `/${slugs.archived}`, expect: (r) => expect(r.status).toBe(302) },
  {
    name: "abuse link",
    path: () => `/${slugs.abuse}`,
    expect: (r) =>
      expect(r).toMatchObject({ status: 403, body: expect.stringContaining("distribution &#8212; hame&#231;onnage") }),
  },
  { name: "unknown slug", path: () => "/Unknown9", expect: (r) => expect(r.status).toBe(404) },
  {
    name: "unknown slug, HEAD",
    method: "HEAD",
    path: () => "/Unknown9",
    expect: (r) => expect(r).toMatchObject({ status: 404, body: "" }),
  },
  { name: "active link, HEAD", method: "HEAD", path: () => `/${slugs.active}`, expect: (r) => expect(r.status).toBe(302) },
  {
    name: "custom domain",
    host: () => customHost,
    path: () => `/${slugs.custom}`,
    expect: (r) => expect(r.headers.location).toBe("https://example.com/custom"),
  },
  {
    // ADR 0010: no exact code, one code of the host equal to it ignoring case.
    name: "custom domain, the code typed in another case",
    host: () => customHost,
    path: () => `/${slugs.custom!.toUpperCase()}`,
    expect: (r) => expect(r).toMatchObject({ status: 302, headers: { location: "https://example.com/custom" } }),
  },
  { name: "custom domain slug on the short host", path: () => `/${slugs.custom}`, expect: (r) => expect(r.status).toBe(404) },
  // A domain's root and unknown codes, where its owner says; an existing code always answers for itself.
  ...(
    [
      ["unknown code on a domain with a not-found destination", "GET", "/Unknown9", "https://example.com/site-lost"],
      ["unknown multi-segment code there", "GET", "/2024/unknown", "https://example.com/site-lost"],
      ["an existing code there", "GET", "@site", "https://example.com/site-menu"],
      ["an existing code there, typed in another case", "GET", "@SITE", "https://example.com/site-menu"],
    ] as const
  ).map(([name, method, path, location]): Case => ({
    name,
    method,
    host: () => siteHost,
    path: () => (path === "@site" ? `/${slugs.site}` : path === "@SITE" ? `/${slugs.site!.toUpperCase()}` : path),
    expect: (r) => expect(r).toMatchObject({ status: 302, headers: { location } }),
  })),
  // Printed codes (ADR 0007): the path as browsers send it, and every other form of the same code.
  onDomain("unicode code, percent-encoded as browsers send it", "/caf%C3%A9", "https://example.com/cafe"),
  onDomain("unicode code, decomposed (NFD)", "/cafe%CC%81", "https://example.com/cafe"),
  onDomain("unicode code, typed in another case", "/CAF%C3%89", "https://example.com/cafe"),
  onDomain("unicode code, lower-case hex escapes", "/caf%c3%a9", "https://example.com/cafe"),
  onDomain("hangul code", "/%EA%B5%AC%EA%B8%80", "https://example.com/korean"),
  onDomain("dotted code", "/menu.pdf", "https://example.com/menu-pdf"),
  onDomain("dotted code, the dot percent-encoded", "/menu%2Epdf", "https://example.com/menu-pdf"),
  onDomain("code with a tilde", "/deal~1", "https://example.com/deal"),
  onDomain("code with a tilde, percent-encoded", "/deal%7E1", "https://example.com/deal"),
  onDomain("multi-segment code", "/2024/spring", "https://example.com/spring"),
  onDomain("multi-segment code, the slash percent-encoded", "/2024%2Fspring", "https://example.com/spring"),
  onDomain("multi-segment code, with a query", "/2024/spring?utm_source=poster", "https://example.com/spring?utm_source=poster"),
  onDomain("one-character code", "/x", "https://example.com/x"),
  onDomain("multi-segment unknown code", "/2024/autumn", null),
  { name: "not a slug character", path: () => "/%E2%9C%93", expect: (r) => expect(r.status).toBe(404) },
  ...(
    [
      ["rules: a trusted country header", { "x-vercel-ip-country": "AU", "user-agent": IPHONE }, "https://example.com/au"],
      // No header names a country: the trusted address's, as analytics records it (GeoLite2 places this one in Australia).
      ["rules: the country of a trusted address", { "x-forwarded-for": "203.2.218.214" }, "https://example.com/au"],
      ["rules: an iPhone", { "user-agent": IPHONE }, "https://example.com/ios"],
      ["rules: an Android phone", { "user-agent": ANDROID }, "https://example.com/android"],
      ["rules: Accept-Language", { "accept-language": "fr-CA,fr;q=0.9,en;q=0.5" }, "https://example.com/fr"],
      ["rules: no rule matches", { "accept-language": "de" }, "https://example.com/routed"],
    ] as const
  ).map(([name, headers, location]): Case => ({
    name,
    headers,
    path: () => `/${slugs.routed}`,
    expect: (r) => expect(r).toMatchObject({ status: 302, headers: { location } }),
  })),
  {
    name: "password link: the page asking for it",
    path: () => `/${slugs.protected}?table=4`,
    expect: (r) => {
      expect(r).toMatchObject({ status: 401, headers: { "www-authenticate": 'Link-Password realm="short link"' } });
      expect(r.body).toMatch(/<title>Staff menu<\/title>[\s\S]*<form method="post">[\s\S]*name="password" type="password"/);
      expect(r.headers["set-cookie"]).toBeUndefined();
    },
  },
  {
    name: "password link, HEAD",
    method: "HEAD",
    path: () => `/${slugs.protected}`,
    expect: (r) => expect(r).toMatchObject({ status: 401, body: "" }),
  },
  {
    name: "password link: a wrong password in the form",
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "password=staff+on",
    path: () => `/${slugs.protected}`,
    expect: (r) => expect(r).toMatchObject({ status: 401, body: expect.stringContaining("That password is not right.") }),
  },
  {
    name: "password link: the right password in the form",
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: `password=${encodeURIComponent(PASSWORD)}`,
    path: () => `/${slugs.protected}?table=4`,
    expect: (r) => {
      expect(r).toMatchObject({ status: 302, headers: { location: "https://example.com/protected?table=4" } });
      expect(r.headers["set-cookie"]).toMatch(
        new RegExp(`^permalink_pass=\\d+\\.[\\w-]{43}; Path=/${slugs.protected}; Max-Age=1800; HttpOnly; SameSite=Lax$`),
      );
    },
  },
  {
    name: "password link: the Link-Password header",
    headers: { "link-password": PASSWORD },
    path: () => `/${slugs.protected}`,
    expect: (r) => expect(r).toMatchObject({ status: 302, headers: { location: "https://example.com/protected" } }),
  },
  {
    name: "password link: a pass from an earlier entry",
    headers: () => ({ cookie: `theme=dark; ${pass}` }),
    path: () => `/${slugs.protected}`,
    expect: (r) => {
      expect(r).toMatchObject({ status: 302, headers: { location: "https://example.com/protected" } });
      expect(r.headers["set-cookie"]).toBeUndefined();
    },
  },
  {
    name: "password link: a form too long to be a password's",
    method: "POST",
    body: `password=${"x".repeat(5000)}`,
    path: () => `/${slugs.protected}`,
    expect: (r) => expect(r.status).toBe(413),
  },
  {
    name: "preview: a link-preview crawler gets the page with its tags and the redirect",
    headers: { "user-agent": SLACK },
    path: () => `/${slugs.previewed}?utm_source=slack`,
    expect: (r) => {
      expect(r).toMatchObject({ status: 200, headers: { "content-type": "text/html; charset=utf-8" } });
      const location = "https://example.com/previewed?utm_source=slack";
      expect(r.body).toContain('<meta property="og:title" content="Spring menu &#8212; twelve dishes">');
      expect(r.body).toContain('<meta property="og:description" content="From Thursday &#60;in&#62; every shop.">');
      expect(r.body).toContain(`<meta property="og:url" content="http://${SHORT_HOST}/${slugs.previewed}">`);
      expect(r.body).toContain('<meta name="twitter:card" content="summary_large_image">');
      expect(r.body).toContain(
        `<meta property="og:image" content="http://app.test.example/api/links/${ids.previewed}/preview/image?v=${PREVIEW_IMAGE.slice(0, 16)}">`,
      );
      expect(r.body).toContain(`<meta http-equiv="refresh" content="0; url=${location}">`);
      expect(r.body).toContain(`<a href="${location}">`);
      expect(r.headers.location).toBeUndefined();
    },
  },
  {
    name: "preview: iMessage's fetcher, HEAD",
    method: "HEAD",
    headers: { "user-agent": IMESSAGE },
    path: () => `/${slugs.previewed}`,
    expect: (r) => expect(r).toMatchObject({ status: 200, body: "" }),
  },
  {
    name: "preview: a person's browser gets the redirect",
    headers: { "user-agent": IPHONE },
    path: () => `/${slugs.previewed}`,
    expect: (r) => expect(r).toMatchObject({ status: 302, headers: { location: "https://example.com/previewed" } }),
  },
  {
    name: "preview: a crawler at a link without one gets the redirect",
    headers: { "user-agent": SLACK },
    path: () => `/${slugs.active}`,
    expect: (r) => expect(r).toMatchObject({ status: 302, headers: { location: "https://example.com/active?ref=poster" } }),
  },
  {
    name: "preview: a crawler at a password link gets the password page, never the preview",
    headers: { "user-agent": SLACK },
    path: () => `/${slugs.previewedProtected}`,
    expect: (r) => {
      expect(r.status).toBe(401);
      expect(r.body).not.toContain("og:");
      expect(r.body).not.toContain("previewed-protected");
    },
  },
  {
    name: "a form sent to a link without a password",
    method: "POST",
    body: "password=anything",
    path: () => `/${slugs.active}`,
    expect: (r) => expect(r).toMatchObject({ status: 302, headers: { location: "https://example.com/active?ref=poster" } }),
  },
];

describe("both doors give the same answer", () => {
  it.each(CASES.map((entry) => [entry.name, entry] as const))("%s", async (_name, entry) => {
    const headers = typeof entry.headers === "function" ? entry.headers() : entry.headers;
    const options = { method: entry.method, host: entry.host?.() ?? SHORT_HOST, headers, body: entry.body };
    const [viaFront, viaProxy] = await Promise.all([
      rawRequest(front.url, entry.path(), options),
      rawRequest(proxy.url, entry.path(), options),
    ]);
    entry.expect(viaFront);
    expect(viaProxy.status).toBe(viaFront.status);
    for (const header of COMPARED_HEADERS) expect([header, viaProxy.headers[header]]).toEqual([header, viaFront.headers[header]]);
    // A pass names the second it was issued in; the rest of the cookie is the same from both doors.
    const cookieShape = (response: RawResponse) => response.headers["set-cookie"]?.replace(/=\d+\.[\w-]+;/, "=…;");
    expect(cookieShape(viaProxy)).toBe(cookieShape(viaFront));
    expect(viaProxy.body).toBe(viaFront.body);
    expect(viaFront.headers["x-robots-tag"]).toBe("noindex");
  });

  // Next adds the pages' own headers to "/" behind its proxy, so the root is compared by status and Location.
  it.each([
    ["GET", "/", "https://example.com/site-home"],
    ["HEAD", "/", "https://example.com/site-home"],
    ["GET", "/?utm_source=card", "https://example.com/site-home?utm_source=card"],
  ])("send a domain's root where its owner says (%s %s)", async (method, path, location) => {
    for (const app of [front, proxy]) {
      const answer = await rawRequest(app.url, path, { method, host: siteHost });
      expect([answer.status, answer.headers.location, answer.headers["cache-control"]]).toEqual([302, location, "no-store"]);
    }
    // Paths of ours keep their refusal there.
    for (const app of [front, proxy]) expect((await rawRequest(app.url, "/api/links", { host: siteHost })).status).toBe(404);
  });

  it("limit password guesses at a code with a sentence and Retry-After, and record scans only on redirect", async () => {
    const linkId = (await db().link.findFirstOrThrow({ where: { slug: slugs.guessed } })).id;
    for (const app of [front, proxy]) {
      for (let guess = 0; guess < 10; guess++) {
        const wrong = await rawRequest(app.url, `/${slugs.guessed}`, {
          host: SHORT_HOST,
          headers: { "link-password": `no ${guess}` },
        });
        expect(wrong.status).toBe(401);
      }
      const limited = await rawRequest(app.url, `/${slugs.guessed}`, {
        host: SHORT_HOST,
        headers: { "link-password": PASSWORD },
      });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
      expect(Number(limited.headers["retry-after"])).toBeLessThanOrEqual(60);
      expect(limited.body).toMatch(/Too many password attempts for this link just now; try again in \d+ seconds\./);
    }
    // Scans are counted when a visitor is redirected, never for the page or a refusal: the table's
    // three redirects of the protected link through each door, none for the guessed one.
    const protectedId = (await db().link.findFirstOrThrow({ where: { slug: slugs.protected } })).id;
    const count = (id: string) => db().scanEvent.count({ where: { linkId: id } });
    for (let waited = 0; waited < 10_000 && (await count(protectedId)) < 6; waited += 200)
      await new Promise((r) => setTimeout(r, 200));
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect([await count(protectedId), await count(linkId)]).toEqual([6, 0]);
  });

  it("count a crawler's preview on the link, apart from scans", async () => {
    // The table's two crawler visits through each door are previews; its browser visit through each is a scan.
    const previews = async () => (await db().link.findUniqueOrThrow({ where: { id: ids.previewed } })).previewCount;
    for (let waited = 0; waited < 10_000 && (await previews()) < 4; waited += 200) await new Promise((r) => setTimeout(r, 200));
    const scans = (id: string) => db().scanEvent.count({ where: { linkId: id } });
    for (let waited = 0; waited < 10_000 && (await scans(ids.previewed!)) < 2; waited += 200)
      await new Promise((r) => setTimeout(r, 200));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect([await previews(), await scans(ids.previewed!)]).toEqual([4, 2]);
    const view = await db().link.findUniqueOrThrow({ where: { id: ids.previewedProtected } });
    expect(view.previewCount).toBe(0);
  });

  it("hands everything else to the application", async () => {
    for (const app of [front, proxy]) {
      const docs = await rawRequest(app.url, "/docs", { host: "app.test.example" });
      expect(docs.status).toBe(200);
      expect(docs.body).toContain("/api/links");
      // Browsers ask for it before they read a page's icon link: a 404 here is an error in their console.
      const icon = await rawRequest(app.url, "/favicon.ico", { host: "app.test.example" });
      expect([icon.status, icon.headers["content-type"]]).toEqual([200, "image/x-icon"]);
      for (const host of ["app.test.example", "127.0.0.1", "my-app-x1y2.vercel.app"]) {
        expect([host, (await rawRequest(app.url, "/api/links", { host })).status]).toEqual([host, 401]);
      }
      expect((await rawRequest(app.url, "/api/health", { host: "127.0.0.1" })).status).toBe(200);
    }
  });
});

describe("hosts that serve short links only", () => {
  const JSON_TYPE = "application/json; charset=utf-8";
  const PAGE_TYPE = "text/html; charset=utf-8";
  const cases: [name: string, host: () => string, method: string, path: string, type: string][] = [
    ["the API on a custom domain", () => customHost, "GET", "/api/links", JSON_TYPE],
    ["a write to the API on a custom domain", () => customHost, "POST", "/api/links", JSON_TYPE],
    ["next-auth on a custom domain", () => customHost, "GET", "/api/auth/session", JSON_TYPE],
    ["the dashboard on a custom domain", () => customHost, "GET", "/dashboard/links", PAGE_TYPE],
    ["the site's root on a custom domain", () => customHost, "GET", "/", PAGE_TYPE],
    ["the API on the short host", () => SHORT_HOST, "GET", "/api/health", JSON_TYPE],
    ["sign-in on the short host", () => SHORT_HOST, "GET", "/signin/check-email", PAGE_TYPE],
  ];

  it.each(cases)("refuse %s with a 404, the same from both doors", async (_name, host, method, path, type) => {
    const options = {
      method,
      host: host(),
      headers: { "content-type": "application/json" },
      body: method === "POST" ? "{}" : undefined,
    };
    const [viaFront, viaProxy] = await Promise.all([rawRequest(front.url, path, options), rawRequest(proxy.url, path, options)]);
    expect(viaFront).toMatchObject({ status: 404, headers: { "content-type": type } });
    expect(viaFront.body).toMatch(/serves short links only/);
    expect(viaProxy.status).toBe(404);
    expect(viaProxy.headers["content-type"]).toBe(type);
    expect(viaProxy.body).toBe(viaFront.body);
  });

  it("keep resolving the domain's links, and its /api and /dashboard are codes like any other", async () => {
    for (const app of [front, proxy]) {
      const link = await rawRequest(app.url, `/${slugs.custom}`, { host: customHost });
      expect(link).toMatchObject({ status: 302, headers: { location: "https://example.com/custom" } });
      for (const path of ["/api", "/dashboard"]) {
        const visit = await rawRequest(app.url, path, { host: customHost });
        expect([path, visit.status, visit.body]).toEqual([path, 404, expect.stringContaining("This short link does not exist")]);
      }
    }
  });
});
