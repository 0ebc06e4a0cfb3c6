import { startDashboardSession } from "@/lib/workspaces/sign-in";
import { startApp, type RunningApp } from "@/server/app-process";
import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newUser, type TestUser } from "../support/api";

/**
 * The dashboard's pages read their query strings from the address bar, which anyone can edit or
 * send as a link: an odd value gets the page (or its own sentence), never a server error.
 */

let app: RunningApp;
let user: TestUser;
let cookie: string;
let linkId: string;

beforeAll(async () => {
  app = await startApp("front", {
    DATABASE_URL: process.env.DATABASE_URL,
    AUTH_SECRET: process.env.AUTH_SECRET,
    DNS_RESOLVER: process.env.DNS_RESOLVER,
    RECHECK_INTERVAL_SECONDS: "0",
  });
  user = await newUser("dashboard-addresses");
  // The dashboard's session is next-auth's encrypted JWT cookie, its subject the user's id and its sid a
  // live dashboard session (lib/api/dashboard.ts).
  const token = { sub: user.userId, sid: await startDashboardSession(user.userId) };
  cookie = `next-auth.session-token=${await encode({ token, secret: process.env.AUTH_SECRET! })}`;
  for (const slug of ["addr-one", "addr-two"]) {
    const created = await call("POST", "/api/links", {
      token: user.token,
      body: { destination: `https://example.com/${slug}`, slug },
    });
    linkId = (created.body as { id: string }).id;
  }
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

async function page(path: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${app.url}${path}`, { headers: { cookie }, redirect: "manual" });
  return { status: response.status, text: await response.text() };
}

describe("the dashboard's pages given odd query strings", () => {
  it("shows the links page for a signed-in person (the control case)", async () => {
    const links = await page("/dashboard");
    expect(links.status).toBe(200);
    expect(links.text).toContain("addr-one");
  });

  it.each([
    ["an unreadable cursor", "/dashboard?cursor=not-a-cursor"],
    ["a cursor longer than any the page writes", `/dashboard?cursor=${"A".repeat(300)}`],
    ["a search holding a NUL character, which PostgreSQL's text cannot", "/dashboard?q=addr%00"],
    ["a host filter holding a NUL character", "/dashboard?domain=a%00b"],
  ])("shows the first page of links for %s", async (_what, path) => {
    const links = await page(path);
    expect(links.status).toBe(200);
    expect(links.text).toContain("addr-one");
  });

  it("shows the personal workspace's links when the workspace cookie names no possible workspace (a NUL character)", async () => {
    const response = await fetch(`${app.url}/dashboard`, { headers: { cookie: `${cookie}; workspace=%00` }, redirect: "manual" });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("addr-one");
  });

  it.each(["toString", "constructor", "__proto__"])(
    "shows the last 30 days for ?range=%s on the analytics page",
    async (range) => {
      const analytics = await page(`/dashboard/analytics?range=${range}`);
      expect(analytics.status).toBe(200);
      expect(analytics.text).toContain("Scans over time");
    },
  );
});

/**
 * A page about one thing named by its address looks the thing up before anything streams, so a
 * thing that is not there (or not this workspace's) answers 404 with the dashboard's own page,
 * inside its frame, not a 200 whose body says so.
 */
describe("the dashboard's pages for something that is not there", () => {
  it.each([
    ["a link page whose id is not a link's", "/dashboard/links/lnk_nosuchlink"],
    ["a link page whose id holds a NUL character", "/dashboard/links/%00"],
    ["analytics for a link_id that names no link", "/dashboard/analytics?link_id=lnk_nosuchlink"],
    ["analytics for a link_id holding a NUL character", "/dashboard/analytics?link_id=%00"],
    ["an import id that names no import", "/dashboard/imports?id=imp_nosuchimport"],
    ["an import id that is no id at all", "/dashboard/imports?id=%00"],
    ["an address under /dashboard that is no page", "/dashboard/no-such-page"],
  ])("answers 404 with the dashboard's not-found page for %s", async (_what, path) => {
    const missing = await page(path);
    expect(missing.status).toBe(404);
    // Next answers a 404 found before streaming with its error shell and the page's data, which the
    // browser draws (vercel/next.js#62228): the dashboard's own page, inside its frame (the switcher's workspace).
    expect(missing.text).toContain("Nothing here");
    expect(missing.text).toContain("is not in this workspace");
    expect(missing.text).toContain("workspace (personal)");
  });

  it("answers 200 for the same pages when the thing is there (the control case)", async () => {
    for (const path of [`/dashboard/links/${linkId}`, `/dashboard/analytics?link_id=${linkId}`, "/dashboard/imports"]) {
      const found = await page(path);
      // (Every dashboard page carries its not-found page in its data, for the browser's later use: the status tells.)
      expect(found.status, path).toBe(200);
      expect(found.text, path).not.toContain('<html id="__next_error__"');
    }
    expect((await page(`/dashboard/links/${linkId}`)).text).toContain("addr-two");
  });
});
