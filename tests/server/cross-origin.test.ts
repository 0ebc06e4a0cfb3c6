import { startDashboardSession } from "@/lib/workspaces/sign-in";
import { startApp, type RunningApp } from "@/server/app-process";
import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newUser } from "../support/api";
import { testAppEnv } from "../support/app-env";

/**
 * CORS for browser-based agent platforms, through the front door as `npm start` serves it: the
 * OAuth metadata documents, registration, the token and revocation endpoints and the MCP server
 * answer the preflight and are readable from any origin (`*`), never with credentials, and the
 * dashboard's cookie counts for nothing there. The dashboard's own doors stay same-origin.
 */

const ORIGIN = "https://agent-platform.example";
const CROSS_ORIGIN_DOORS = [
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/api/mcp",
  "/.well-known/oauth-authorization-server",
  "/api/oauth/register",
  "/api/oauth/token",
  "/api/oauth/revoke",
  "/api/mcp",
];
const MCP_ACCEPT = "application/json, text/event-stream";

let app: RunningApp;

beforeAll(async () => {
  app = await startApp("front", { ...testAppEnv(), RECHECK_INTERVAL_SECONDS: "0" });
}, 300_000);

afterAll(async () => {
  await app?.stop();
});

const send = (path: string, init: RequestInit = {}) =>
  fetch(`${app.url}${path}`, { ...init, headers: { origin: ORIGIN, ...init.headers }, redirect: "manual" });

const listLinks = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_links", arguments: {} } });

describe("CORS for agent platforms", () => {
  it("answers the preflight of every OAuth door and the MCP server, and never allows credentials", async () => {
    for (const path of CROSS_ORIGIN_DOORS) {
      const preflight = await send(path, {
        method: "OPTIONS",
        headers: {
          "access-control-request-method": path.startsWith("/.well-known") ? "GET" : "POST",
          "access-control-request-headers": "authorization, content-type, mcp-protocol-version",
        },
      });
      expect(preflight.status, path).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin"), path).toBe("*");
      expect(preflight.headers.get("access-control-allow-credentials"), path).toBeNull();
      expect(preflight.headers.get("access-control-allow-methods"), path).toBe(preflight.headers.get("allow"));
      const allowed = preflight.headers.get("access-control-allow-headers")!.toLowerCase().split(", ");
      expect(allowed, path).toEqual(expect.arrayContaining(["authorization", "content-type", "mcp-protocol-version"]));
      expect(Number(preflight.headers.get("access-control-max-age")), path).toBeGreaterThan(0);
    }
  });

  it("every answer of those doors is readable from any origin, refusals and the OAuth challenge included", async () => {
    for (const path of CROSS_ORIGIN_DOORS.filter((door) => door.startsWith("/.well-known"))) {
      const metadata = await send(path);
      expect(metadata.status, path).toBe(200);
      expect(metadata.headers.get("access-control-allow-origin"), path).toBe("*");
    }
    const server = await (await send("/.well-known/oauth-authorization-server")).json();
    expect(server.revocation_endpoint).toBe(server.token_endpoint.replace(/\/token$/, "/revoke"));

    const registered = await send("/api/oauth/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: ["https://agent-platform.example/callback"], client_name: "Browser agent" }),
    });
    expect(registered.status).toBe(201);
    expect(registered.headers.get("access-control-allow-origin")).toBe("*");
    const { client_id } = await registered.json();

    const form = { "content-type": "application/x-www-form-urlencoded" };
    const token = await send("/api/oauth/token", {
      method: "POST",
      headers: form,
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "plr_unknown", client_id }).toString(),
    });
    expect(token.status).toBe(400);
    expect(token.headers.get("access-control-allow-origin")).toBe("*");
    expect((await token.json()).error).toBe("invalid_grant");
    const revoked = await send("/api/oauth/revoke", {
      method: "POST",
      headers: form,
      body: new URLSearchParams({ token: "plr_unknown", client_id }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect(revoked.headers.get("access-control-allow-origin")).toBe("*");

    const mcp = await send("/api/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: MCP_ACCEPT },
      body: listLinks,
    });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get("access-control-allow-origin")).toBe("*");
    const exposed = mcp.headers.get("access-control-expose-headers")!.toLowerCase().split(", ");
    expect(exposed).toEqual(expect.arrayContaining(["www-authenticate", "mcp-session-id"]));
    expect(mcp.headers.get("www-authenticate")).toMatch(
      /resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/api\/mcp"/,
    );

    const wrongMethod = await send("/api/oauth/token");
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("the dashboard's cookie counts for nothing at the MCP server, and the dashboard's own doors stay same-origin", async () => {
    const user = await newUser("cross-origin-cookie");
    const session = { sub: user.userId, sid: await startDashboardSession(user.userId) };
    const cookie = `next-auth.session-token=${await encode({ token: session, secret: process.env.AUTH_SECRET! })}`;
    const withCookie = await send("/api/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: MCP_ACCEPT, cookie },
      body: listLinks,
    });
    expect(withCookie.status).toBe(401);
    expect(withCookie.headers.get("access-control-allow-credentials")).toBeNull();
    // The same person's bearer credential is what acts.
    const withToken = await send("/api/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: MCP_ACCEPT, authorization: `Bearer ${user.token}` },
      body: listLinks,
    });
    expect(withToken.status).toBe(200);
    expect(withToken.headers.get("access-control-allow-origin")).toBe("*");

    for (const path of ["/api/oauth/grants", "/api/links", "/api/oauth/authorize", "/api/billing/checkout"]) {
      const preflight = await send(path, { method: "OPTIONS", headers: { "access-control-request-method": "POST" } });
      expect(preflight.headers.get("access-control-allow-origin"), path).toBeNull();
      const answer = await send(path, { headers: { cookie } });
      expect(answer.headers.get("access-control-allow-origin"), path).toBeNull();
    }
  });
});
