import { db } from "@/lib/db/client";
import { endAllDashboardSessions } from "@/lib/workspaces/sign-in";
import { describe, expect, it } from "vitest";
import { call } from "../support/api";

const cookiePairs = (headers: Headers) =>
  headers
    .getSetCookie()
    .map((line) => line.split(";")[0]!)
    .filter((pair) => !pair.endsWith("="));

/** Signs in through next-auth's own routes (the development sign-in: the same session cookie as a magic link's). */
async function signIn(email: string, headers: Record<string, string> = {}) {
  const csrf = await call("GET", "/api/auth/csrf", { headers });
  const csrfCookies = cookiePairs(csrf.headers);
  const signedIn = await call("POST", "/api/auth/callback/development", {
    headers: { ...headers, "content-type": "application/x-www-form-urlencoded", cookie: csrfCookies.join("; ") },
    rawBody: new URLSearchParams({ email, csrfToken: csrf.body.csrfToken, callbackUrl: "/dashboard", json: "true" }).toString(),
  });
  const session = cookiePairs(signedIn.headers).find((pair) => pair.includes("next-auth.session-token"));
  if (!session) throw new Error(`No session cookie: ${signedIn.status} ${signedIn.text}`);
  return { session, csrfCookies, csrfToken: csrf.body.csrfToken as string, setCookies: signedIn.headers.getSetCookie() };
}

/** A dashboard request with this cookie: 200 while its session lives, 401 after. */
const dashboardStatus = async (session: string) =>
  (await call("GET", "/dashboard/analytics/csv?group_by=day", { headers: { cookie: session } })).status;

describe("dashboard sessions", () => {
  it("ends the signed-out session: a copy of its cookie no longer signs in, while another session goes on", async () => {
    const email = `leaver-${Date.now()}@example.com`;
    const first = await signIn(email);
    const second = await signIn(email);
    expect(await dashboardStatus(first.session)).toBe(200);
    const signedOut = await call("POST", "/api/auth/signout", {
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: [first.session, ...first.csrfCookies].join("; ") },
      rawBody: new URLSearchParams({ csrfToken: first.csrfToken, callbackUrl: "/", json: "true" }).toString(),
    });
    expect(signedOut.status).toBe(200);
    expect(await dashboardStatus(first.session)).toBe(401);
    expect(await dashboardStatus(second.session)).toBe(200);
  });

  it("ends every session of the person when they sign out everywhere", async () => {
    const email = `everywhere-${Date.now()}@example.com`;
    const sessions = [await signIn(email), await signIn(email)];
    const { id: userId } = await db().user.findFirstOrThrow({ where: { email }, select: { id: true } });
    await endAllDashboardSessions(userId);
    expect(await Promise.all(sessions.map(({ session }) => dashboardStatus(session)))).toEqual([401, 401]);
    expect(await dashboardStatus((await signIn(email)).session)).toBe(200);
    // The next sign-in took the ended rows with it: only the live session is kept.
    expect(await db().dashboardSession.findMany({ where: { userId }, select: { endedAt: true } })).toEqual([{ endedAt: null }]);
  });

  it("sets Secure cookies for a request that came over HTTPS through a trusted proxy, and only then", async () => {
    const { resetConfig } = await import("@/lib/config");
    const proxiesInFront = process.env.TRUSTED_PROXY_HOPS;
    const setProxiesInFront = (hops: string | undefined) => {
      if (hops === undefined) delete process.env.TRUSTED_PROXY_HOPS;
      else process.env.TRUSTED_PROXY_HOPS = hops;
      resetConfig();
    };
    setProxiesInFront("1");
    try {
      const overHttps = await signIn(`https-${Date.now()}@example.com`, { "x-forwarded-proto": "https" });
      expect(overHttps.setCookies.find((line) => line.includes("session-token"))).toMatch(
        /^__Secure-next-auth\.session-token=.*; Secure/i,
      );
      expect(await dashboardStatus(overHttps.session)).toBe(200);
      const overHttp = await signIn(`http-${Date.now()}@example.com`, { "x-forwarded-proto": "http" });
      expect(overHttp.setCookies.find((line) => line.includes("session-token"))).not.toMatch(/Secure/i);
      // Without a trusted proxy the header is the client's word, and counts for nothing.
      setProxiesInFront("0");
      const untrusted = await signIn(`untrusted-${Date.now()}@example.com`, { "x-forwarded-proto": "https" });
      expect(untrusted.setCookies.find((line) => line.includes("session-token"))).not.toMatch(/Secure/i);
    } finally {
      setProxiesInFront(proxiesInFront);
    }
  });
});
