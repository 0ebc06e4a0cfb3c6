import { db } from "@/lib/db/client";
import { decideConsent, pendingConsent } from "@/lib/oauth/service";
import { describe, expect, it } from "vitest";
import { call, joinWorkspace, newUser, type TestUser } from "../support/api";
import {
  allow,
  authorize,
  connectApp,
  exchange,
  form,
  mcpUrl,
  pkce,
  REDIRECT,
  register,
  start,
  type Started,
} from "../support/oauth";

/**
 * OAuth 2.1 for agents through the route handlers: registration, the authorization request, the
 * consent decision (the consent page's action calls decideConsent), the token endpoint, the token
 * on the HTTP API and the MCP server, refresh rotation, revocation. The browser flow with the MCP
 * SDK's own client is e2e/oauth.e2e.ts.
 */

async function allowHere(user: TestUser, started: Started, scopes: string[], workspaceId = user.workspaceId) {
  return allow(user, started, scopes, workspaceId);
}

async function connected(user: TestUser, scopes = ["links:read", "links:write", "account:read"]) {
  return connectApp(user, user.workspaceId, scopes);
}

describe("metadata and registration", () => {
  it("registers a public client, and refuses redirect URIs that are neither https nor loopback", async () => {
    const ok = await register(["https://agent.example/cb", "http://[::1]/cb"]);
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body).toMatchObject({
      client_id: expect.stringMatching(/^ocl_/),
      token_endpoint_auth_method: "none",
      client_name: "Test agent",
    });
    for (const uri of ["http://agent.example/cb", "javascript:alert(1)", "https://agent.example/cb#x", "not a url"]) {
      const refused = await register([uri]);
      expect(refused.status, uri).toBe(400);
      expect(refused.body.error).toBe("invalid_redirect_uri");
      expect(refused.body.error_description).toMatch(/redirect URI/);
    }
    const badLogo = await register([REDIRECT], { logo_uri: "http://tracker.example/logo.png" });
    expect(badLogo.body).toMatchObject({
      error: "invalid_client_metadata",
      error_description: expect.stringMatching(/logo_uri/),
    });
    const badName = await register([REDIRECT], { client_name: "Evil\u202Eppa" });
    expect(badName.body.error).toBe("invalid_client_metadata");
  });

  it("answers a body it cannot read in RFC 7591's shape, never the API's bare sentence", async () => {
    // Before the fix these were {error: "The request body …"}, which the OpenAPI document did not declare for this 400.
    const bodies: unknown[] = [
      null,
      [],
      "x",
      { redirect_uris: "https://a.example/cb" },
      { redirect_uris: [1] },
      { redirect_uris: ["https://a.example/cb"], client_name: 5 },
      { redirect_uris: ["https://a.example/cb"], grant_types: "authorization_code" },
      { redirect_uris: ["https://a.example/cb"], logo_uri: 5 },
    ];
    for (const body of bodies) {
      const refused = await call("POST", "/api/oauth/register", { body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(refused.body).sort(), JSON.stringify(body)).toEqual(["error", "error_description"]);
      expect(["invalid_client_metadata", "invalid_redirect_uri"]).toContain(refused.body.error);
      expect(refused.body.error_description).toMatch(/\S/);
    }
    const notJson = await call("POST", "/api/oauth/register", {
      rawBody: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(notJson.status).toBe(400);
    expect(notJson.body).toMatchObject({ error: "invalid_client_metadata", error_description: expect.any(String) });
  });
});

describe("the authorization request", () => {
  it("answers every error itself (400), never by sending the browser to the redirect URI", async () => {
    // Registration is open: anyone registers a phishing page as a redirect URI. Before the fix, a bad
    // response_type, PKCE, resource or scope answered 303 straight to it with no one having seen anything
    // (an open redirector, RFC 9700 §4.11.2); these answers used to be that redirect.
    const phish = "https://evil.example/phish";
    const clientId = (await register([REDIRECT, phish])).body.client_id as string;
    const { challenge } = pkce();
    const base = {
      response_type: "code",
      client_id: clientId,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "s",
    };
    const unregistered = await authorize({ ...base, redirect_uri: "https://attacker.example/cb" });
    expect(unregistered.status).toBe(400);
    expect(unregistered.body).toMatchObject({
      error: "invalid_request",
      error_description: expect.stringMatching(/redirect_uri/),
    });
    const unknown = await authorize({ ...base, client_id: "ocl_AAAAAAAAAAAAAAAAAAAA", redirect_uri: REDIRECT });
    expect(unknown.status).toBe(400);
    const wrong: [Record<string, string>, string, RegExp][] = [
      [{ response_type: "token" }, "unsupported_response_type", /response_type=code/],
      // Loopback on another port is the same redirect URI (RFC 8252): refused for its PKCE, not its address.
      [{ redirect_uri: "http://127.0.0.1:5999/callback", code_challenge_method: "plain" }, "invalid_request", /S256/],
      [{ code_challenge: "short" }, "invalid_request", /code_challenge/],
      [{ resource: "https://elsewhere.example/mcp" }, "invalid_target", /resource/],
      [{ scope: "links:read admin" }, "invalid_scope", /admin/],
      [{ state: "x".repeat(1001) }, "invalid_request", /state/],
    ];
    for (const redirectUri of [REDIRECT, phish])
      for (const [change, error, sentence] of wrong) {
        const answer = await authorize({ ...base, redirect_uri: redirectUri, ...change });
        expect(answer.status, JSON.stringify(change)).toBe(400);
        expect(answer.headers.get("location")).toBeNull();
        expect(answer.body).toMatchObject({ error, error_description: expect.stringMatching(sentence) });
      }
    // A valid request to the same address goes to our own consent page, and only a person's Deny there sends the
    // browser back to the app with an error.
    const valid = await authorize({ ...base, redirect_uri: phish });
    expect(valid.status).toBe(303);
    const consent = new URL(valid.headers.get("location")!);
    expect(consent.origin).toBe(new URL(mcpUrl()).origin);
    const owner = await newUser("oauth-deny");
    const denied = new URL(
      await decideConsent(owner.userId, consent.pathname.split("/").pop()!, {
        allow: false,
        workspaceId: owner.workspaceId,
        scopes: [],
      }),
    );
    expect(denied.origin + denied.pathname).toBe(phish);
    expect(denied.searchParams.get("error")).toBe("access_denied");
    expect(denied.searchParams.get("state")).toBe("s");
  });
});

describe("consent, tokens and the API", () => {
  it("a member's app acts as them on the API, within its scopes; refresh rotates and a replay revokes", async () => {
    const owner = await newUser("oauth-owner");
    const { tokens } = await connected(owner);
    expect(tokens.scope).toBe("links:read links:write account:read");
    expect(tokens.access_token).toMatch(/^plo_/);
    // Stored hashed: neither token is in the database.
    const stored = await db().oAuthToken.findMany({ select: { tokenHash: true } });
    expect(stored.map((row) => row.tokenHash)).not.toContain(tokens.access_token);
    expect(JSON.stringify(stored)).not.toContain(tokens.refresh_token);

    const created = await call("POST", "/api/links", {
      token: tokens.access_token,
      body: { destination: "https://example.com/oauth" },
    });
    expect(created.status, created.text).toBe(201);
    const link = await db().link.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(link.createdByUserId).toBe(owner.userId);

    const analytics = await call("GET", "/api/analytics", { token: tokens.access_token });
    expect(analytics.status).toBe(403);
    expect(analytics.body.error).toMatch(/analytics:read/);
    expect(analytics.headers.get("www-authenticate")).toMatch(/error="insufficient_scope", scope="analytics:read"/);
    const claim = await call("POST", "/api/billing/claim", { token: tokens.access_token });
    expect(claim.status).toBe(403);

    const refreshed = await call(
      "POST",
      "/api/oauth/token",
      form({
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token,
        client_id: (await db().oAuthGrant.findFirstOrThrow({ where: { userId: owner.userId } })).clientId,
      }),
    );
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(tokens.refresh_token);
    expect((await call("GET", "/api/links", { token: refreshed.body.access_token })).status).toBe(200);

    // The rotated refresh token used again: the whole connection ends.
    const grant = await db().oAuthGrant.findFirstOrThrow({ where: { userId: owner.userId } });
    const replay = await call(
      "POST",
      "/api/oauth/token",
      form({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: grant.clientId }),
    );
    expect(replay.status).toBe(400);
    expect(replay.body).toMatchObject({ error: "invalid_grant", error_description: expect.stringMatching(/already used/) });
    const after = await call("GET", "/api/links", { token: refreshed.body.access_token });
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
    expect(after.headers.get("www-authenticate")).toMatch(
      /resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/api\/mcp"/,
    );
  });

  it("refuses a wrong PKCE verifier and a reused code (which revokes what the code gave)", async () => {
    const owner = await newUser("oauth-pkce");
    const started = await start();
    const code = await allowHere(owner, started, ["links:read"]);
    const wrong = await exchange(started, code, pkce().verifier);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ error: "invalid_grant", error_description: expect.stringMatching(/code_verifier/) });
    const first = await exchange(started, code);
    expect(first.status).toBe(200);
    const again = await exchange(started, code);
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ error: "invalid_grant", error_description: expect.stringMatching(/already used/) });
    expect((await call("GET", "/api/links", { token: first.body.access_token })).status).toBe(401);
  });

  it("two exchanges of one code at once: one wins, and the other revokes what the winner got", async () => {
    // Before the fix the loser's refusal said the tokens were revoked while the winner's kept working: the loser
    // lost the conditional UPDATE before the winner had recorded its grant, and so had no grant to revoke.
    const owner = await newUser("oauth-race");
    for (let round = 0; round < 3; round++) {
      const started = await start("links:read");
      const code = await allowHere(owner, started, ["links:read"]);
      const answers = await Promise.all([exchange(started, code), exchange(started, code)]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
      const [winner, loser] = answers[0]!.status === 200 ? answers : [answers[1]!, answers[0]!];
      expect(loser!.body).toMatchObject({ error: "invalid_grant", error_description: expect.stringMatching(/already used/) });
      expect((await call("GET", "/api/links", { token: winner!.body.access_token })).status).toBe(401);
      const refreshed = await call(
        "POST",
        "/api/oauth/token",
        form({ grant_type: "refresh_token", refresh_token: winner!.body.refresh_token, client_id: started.clientId }),
      );
      expect(refreshed.status).toBe(400);
    }
  });

  it("refuses a token request for another resource, and a token bound to another resource", async () => {
    const owner = await newUser("oauth-resource");
    const started = await start();
    const code = await allowHere(owner, started, ["links:read"]);
    const other = await call(
      "POST",
      "/api/oauth/token",
      form({
        grant_type: "authorization_code",
        code,
        code_verifier: started.verifier,
        client_id: started.clientId,
        resource: "https://elsewhere.example/mcp",
      }),
    );
    expect(other.status).toBe(400);
    expect(other.body.error).toBe("invalid_target");
    const tokens = (await exchange(started, code)).body;
    await db().oAuthGrant.updateMany({ where: { userId: owner.userId }, data: { resource: "https://elsewhere.example/mcp" } });
    expect((await call("GET", "/api/links", { token: tokens.access_token })).status).toBe(401);
  });

  it("a viewer cannot allow a write; a person in several workspaces chooses one", async () => {
    const owner = await newUser("oauth-team-owner");
    const viewer = await newUser("oauth-viewer");
    await joinWorkspace(viewer, owner.workspaceId, "viewer");
    const started = await start();
    const consent = await pendingConsent(viewer.userId, started.requestId);
    const team = consent.workspaces.find((workspace) => workspace.id === owner.workspaceId)!;
    expect(team.role).toBe("viewer");
    expect(team.grantable).toEqual(["links:read", "account:read"]);
    await expect(
      decideConsent(viewer.userId, started.requestId, {
        allow: true,
        workspaceId: owner.workspaceId,
        scopes: ["links:read", "links:write"],
      }),
    ).rejects.toMatchObject({
      code: "forbidden",
      message: expect.stringMatching(/As a viewer of this workspace you cannot allow/),
    });
    const code = await allowHere(viewer, started, ["links:read"], owner.workspaceId);
    const tokens = (await exchange(started, code)).body;
    const listed = await call("GET", "/api/links", { token: tokens.access_token });
    expect(listed.status).toBe(200);
    const written = await call("POST", "/api/links", {
      token: tokens.access_token,
      body: { destination: "https://example.com/v" },
    });
    expect(written.status).toBe(403);
  });

  it("connected apps: listed, revoked at once, and revoked when their person leaves the workspace", async () => {
    const owner = await newUser("oauth-apps-owner");
    const member = await newUser("oauth-apps-member");
    const asMember = await joinWorkspace(member, owner.workspaceId, "member");
    const mine = await connected(owner);
    const started = await start();
    const code = await allowHere(member, started, ["links:read"], owner.workspaceId);
    const theirs = (await exchange(started, code)).body;

    const listed = await call("GET", "/api/oauth/grants", { token: owner.token });
    expect(listed.status, listed.text).toBe(200);
    // The owner sees every app of the workspace, the member only their own.
    expect(listed.body.grants.map((grant: { connected_by: string }) => grant.connected_by).sort()).toEqual(
      [owner.email, member.email].sort(),
    );
    const memberView = await call("GET", "/api/oauth/grants", asMember);
    expect(memberView.body.grants).toHaveLength(1);
    expect(memberView.body.grants[0]).toMatchObject({
      app: { name: "Test agent" },
      connected_by: member.email,
      scopes: ["links:read"],
    });
    // Only a person sees them: never the app itself.
    expect((await call("GET", "/api/oauth/grants", { token: mine.tokens.access_token })).status).toBe(403);

    const ownGrant = listed.body.grants.find((grant: { connected_by: string }) => grant.connected_by === owner.email)
      .id as string;
    expect((await call("DELETE", `/api/oauth/grants/${ownGrant}`, { token: owner.token })).status).toBe(204);
    expect((await call("GET", "/api/links", { token: mine.tokens.access_token })).status).toBe(401);
    expect((await call("DELETE", `/api/oauth/grants/${ownGrant}`, { token: owner.token })).status).toBe(404);

    const membershipId = (
      await db().membership.findFirstOrThrow({ where: { userId: member.userId, workspaceId: owner.workspaceId } })
    ).id;
    expect((await call("GET", "/api/links", { token: theirs.access_token })).status).toBe(200);
    expect((await call("DELETE", `/api/members/${membershipId}`, { token: owner.token })).status).toBe(200);
    expect((await call("GET", "/api/links", { token: theirs.access_token })).status).toBe(401);
    expect(await db().oAuthGrant.count({ where: { userId: member.userId, revokedAt: null } })).toBe(0);
  });

  it("the MCP server: an account tool without credentials is a 401 naming the resource metadata; with a token the tool runs", async () => {
    const owner = await newUser("oauth-mcp");
    const message = (name: string, args: unknown) => ({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: args },
    });
    const headers = { accept: "application/json, text/event-stream" };
    const anonymous = await call("POST", "/api/mcp", { headers, body: message("list_links", {}) });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/resource_metadata=/);
    const { tokens } = await connected(owner, ["links:read"]);
    const listed = await call("POST", "/api/mcp", { headers, token: tokens.access_token, body: message("list_links", {}) });
    expect(listed.status).toBe(200);
    expect(listed.body.result.isError ?? false).toBe(false);
    const created = await call("POST", "/api/mcp", {
      headers,
      token: tokens.access_token,
      body: message("create_link", { destination: "https://example.com/mcp-oauth" }),
    });
    expect(created.body.result.isError).toBe(true);
    expect(created.body.result.content[0].text).toMatch(/links:write/);
  });
});
