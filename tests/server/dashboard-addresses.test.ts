import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDashboardSession } from "@/lib/workspaces/sign-in";
import { startApp, type RunningApp } from "@/scripts/app-process";
import { call, newUser, type TestUser } from "../support/api";

/**
 * The dashboard's pages read their query strings from the address bar, which anyone can edit or
 * send as a link: an odd value gets the page (or its own sentence), never a server error.
 */

let app: RunningApp;
let user: TestUser;
let cookie: string;

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
  for (const slug of ["addr-one", "addr-two"])
    await call("POST", "/api/links", { token: user.token, body: { destination: `https://example.com/${slug}`, slug } });
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

  // The dashboard streams behind its loading state, so the status (200) is sent before the page
  // finds no link; Next then marks the page noindex. What the person reads is the dashboard's own page.
  it.each(["/dashboard/links/%00", "/dashboard/links/lnk_nosuchlink"])(
    "shows the dashboard's not-found page for a link page whose id names no link (%s)",
    async (path) => {
      const missing = await page(path);
      expect(missing.status).toBeLessThan(500);
      expect(missing.text).toContain("Nothing here");
      expect(missing.text).toMatch(/<meta name="robots" content="noindex"/);
    },
  );

  it("shows the analytics page's own sentence for a link_id that names no link, NUL included", async () => {
    const analytics = await page("/dashboard/analytics?link_id=%00");
    expect(analytics.status).toBe(200);
    expect(analytics.text).toContain("No link with this id exists in this workspace.");
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
