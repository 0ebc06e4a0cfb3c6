import { mintSessionToken } from "@/lib/auth/session-tokens";
import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { NOT_A_MEMBER_MESSAGE, UNAUTHENTICATED_MESSAGE } from "@/lib/http/errors";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, joinWorkspace, newUser, sessionFor } from "../support/api";

const secret = () => new TextEncoder().encode(process.env.AUTH_SECRET!);

function token(
  claims: Record<string, unknown>,
  options: { alg?: string; key?: Uint8Array; issuer?: string; audience?: string; expiresIn?: string } = {},
) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? "HS256" })
    .setSubject(String(claims.email ?? "someone@example.com"))
    .setIssuer(options.issuer ?? "permalink")
    .setAudience(options.audience ?? "permalink-api")
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? "1h")
    .sign(options.key ?? secret());
}

describe("credentials", () => {
  it("refuses a request without credentials with 401 and a sentence", async () => {
    const response = await call("GET", "/api/links");
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: UNAUTHENTICATED_MESSAGE });
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it.each([
    ["an unknown scheme", "Basic dXNlcjpwYXNz"],
    ["a random bearer string", "Bearer not-a-token"],
    ["a key with a broken checksum", "Bearer plk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA000000"],
    ["a well-formed key nobody issued", null],
  ])("refuses %s with the same 401", async (_label, header) => {
    const { generateApiKey } = await import("@/lib/auth/api-keys");
    const authorization = header ?? `Bearer ${generateApiKey("plk")}`;
    const response = await call("GET", "/api/links", { headers: { authorization } });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: UNAUTHENTICATED_MESSAGE });
  });

  it.each([
    ["a wrong issuer", { issuer: "someone-else" }],
    ["a wrong audience", { audience: "another-api" }],
    ["an expired token", { expiresIn: "-5 minutes" }],
    ["a guessed secret", { key: new TextEncoder().encode("x".repeat(40)) }],
    ["a disallowed algorithm", { alg: "HS512", key: new TextEncoder().encode("y".repeat(64)) }],
  ])("refuses a session token with %s", async (_label, options) => {
    const response = await call("GET", "/api/links", { token: await token({ email: "a@example.com" }, options) });
    expect(response.status).toBe(401);
  });

  it("refuses an unsigned (alg none) token", async () => {
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const unsigned = `${encode({ alg: "none" })}.${encode({ sub: "x", iss: "permalink", aud: "permalink-api", exp: 4e9 })}.`;
    const response = await call("GET", "/api/links", { headers: { authorization: `Bearer ${unsigned}` } });
    expect(response.status).toBe(401);
  });
});

describe("session token claims and lifetime", () => {
  /** A built-in token with exactly the given claims (nothing added). */
  const rawToken = (claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).sign(secret());
  const now = () => Math.floor(Date.now() / 1000);
  const base = () => ({
    iss: "permalink",
    aud: "permalink-api",
    sub: "claims@example.com",
    email: "claims@example.com",
    iat: now(),
    exp: now() + 3600,
  });

  it.each([
    ["a numeric sub", { sub: 12345, email: undefined }],
    ["a sub that is an object", { sub: { id: "x" }, email: undefined }],
    ["a sub with a NUL byte", { sub: "a\u0000@example.com", email: undefined }],
    ["an e-mail that is a number", { email: 42 }],
    ["an e-mail that is not an address", { sub: "not-an-address", email: undefined }],
    ["no iat", { iat: undefined }],
    ["an iat in the future", { iat: now() + 3600, exp: now() + 7200 }],
    ["a lifetime beyond the maximum (exp − iat over 30 days)", { iat: now() - 60, exp: now() - 60 + 30 * 86_400 + 1 }],
    ["an exp that is a string", { exp: "tomorrow" }],
  ])("answers a token with %s with 401, never 500", async (_label, overrides) => {
    const response = await call("GET", "/api/workspaces", { token: await rawToken({ ...base(), ...overrides }) });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: UNAUTHENTICATED_MESSAGE });
  });

  it("accepts a lifetime of exactly the maximum, and follows AUTH_TOKEN_MAX_LIFETIME_SECONDS", async () => {
    const thirtyDays = await rawToken({ ...base(), exp: now() + 30 * 86_400 });
    expect((await call("GET", "/api/workspaces", { token: thirtyDays })).status).toBe(200);
    process.env.AUTH_TOKEN_MAX_LIFETIME_SECONDS = "3600";
    resetConfig();
    try {
      expect((await call("GET", "/api/workspaces", { token: thirtyDays })).status).toBe(401);
      expect((await call("GET", "/api/workspaces", { token: await rawToken(base()) })).status).toBe(200);
      await expect(mintSessionToken("claims@example.com", 3601)).rejects.toThrow(/AUTH_TOKEN_MAX_LIFETIME_SECONDS/);
    } finally {
      delete process.env.AUTH_TOKEN_MAX_LIFETIME_SECONDS;
      resetConfig();
    }
  });

  it("makes look-alike spellings of one address one user", async () => {
    const spellings = [
      "Look.Alike@Example.COM",
      "look.alike@example.com.",
      "ｌｏｏｋ.ａｌｉｋｅ@ｅｘａｍｐｌｅ.com",
      " LOOK.ALIKE@example.com ",
    ];
    const tokens = await Promise.all(spellings.map((spelling) => rawToken({ ...base(), sub: spelling, email: spelling })));
    const responses = await Promise.all(tokens.map((token) => call("GET", "/api/workspaces", { token })));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(responses.map((response) => response.body.workspace.id)).size).toBe(1);
    expect(
      await db().user.findMany({ where: { email: "look.alike@example.com" }, select: { subject: true, emailVerified: true } }),
    ).toEqual([{ subject: "look.alike@example.com", emailVerified: true }]);
    expect(await mintSessionToken("ＬＯＯＫ.alike@example.com.")).toEqual(expect.any(String));
    const minted = await call("GET", "/api/workspaces", { token: await mintSessionToken("ＬＯＯＫ.alike@example.com.") });
    expect(minted.body.workspace.id).toBe(responses[0]!.body.workspace.id);
  });
});

describe("first sign-in", () => {
  it("gives a new user a personal workspace where they are owner", async () => {
    const user = { email: "first-sign-in@example.com", token: await sessionFor("first-sign-in@example.com") };
    const response = await call("GET", "/api/workspaces", { token: user.token });
    expect(response.status).toBe(200);
    expect(response.body.workspace).toMatchObject({ kind: "personal", role: "owner", credential: "session", api_key: null });
    expect(response.body.workspaces).toHaveLength(1);
    const members = await call("GET", "/api/members", { token: user.token });
    expect(members.body.members).toEqual([
      expect.objectContaining({ email: user.email, role: "owner", status: "active", created_at: expect.any(Number) }),
    ]);
  });

  it("creates exactly one user and workspace under concurrent first requests", async () => {
    const user = { email: "race@example.com", token: await sessionFor("race@example.com") };
    const responses = await Promise.all(Array.from({ length: 12 }, () => call("GET", "/api/workspaces", { token: user.token })));
    expect(new Set(responses.map((response) => response.body.workspace.id)).size).toBe(1);
    expect(await db().user.count({ where: { email: user.email } })).toBe(1);
  });
});

describe("X-Workspace-Id", () => {
  it("selects a workspace the user is a member of", async () => {
    const owner = await newUser("owner");
    const ownerWorkspace = owner.workspaceId;
    const asTeammate = await joinWorkspace(await newUser("teammate"), ownerWorkspace, "member");

    const response = await call("GET", "/api/workspaces", asTeammate);
    expect(response.status).toBe(200);
    expect(response.body.workspace).toMatchObject({ id: ownerWorkspace, role: "member" });
    expect(response.body.workspaces).toHaveLength(2);
  });

  it("answers a non-member and a missing workspace with the same 401, before validation or anything else", async () => {
    const victimWorkspace = (await newUser("victim")).workspaceId;
    const outsider = await newUser("outsider");

    const attempts = await Promise.all([
      call("POST", "/api/links", { token: outsider.token, headers: { "x-workspace-id": victimWorkspace }, rawBody: "{not json" }),
      call("POST", "/api/links", {
        token: outsider.token,
        headers: { "x-workspace-id": "ws_doesnotexist" },
        body: { destination: "http://10.0.0.1/" },
      }),
      call("POST", "/api/links", {
        token: outsider.token,
        headers: { "x-workspace-id": victimWorkspace },
        body: { destination: "https://example.com", extra: 1 },
      }),
      call("GET", "/api/links?limit=0", { token: outsider.token, headers: { "x-workspace-id": victimWorkspace } }),
      call("DELETE", "/api/links/lnk_nope", { token: outsider.token, headers: { "x-workspace-id": victimWorkspace } }),
      call("POST", "/api/billing/claim", { token: outsider.token, headers: { "x-workspace-id": victimWorkspace } }),
    ]);
    for (const attempt of attempts) {
      expect(attempt.status).toBe(401);
      expect(attempt.text).toBe(JSON.stringify({ error: NOT_A_MEMBER_MESSAGE }));
    }
    expect(await db().link.count({ where: { workspaceId: victimWorkspace } })).toBe(0);
  });
});

describe("an identity provider's JWKS (AUTH_JWKS_URL)", () => {
  let server: Server;
  let privateKey: CryptoKey;

  beforeAll(async () => {
    const pair = await generateKeyPair("ES256");
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: "test-key", alg: "ES256", use: "sig" };
    server = createServer((_request, response) => {
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    process.env.AUTH_JWKS_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
    process.env.AUTH_ISSUER = "https://idp.example.com/";
    process.env.AUTH_AUDIENCE = "links";
    resetConfig();
  });

  afterAll(async () => {
    delete process.env.AUTH_JWKS_URL;
    delete process.env.AUTH_ISSUER;
    delete process.env.AUTH_AUDIENCE;
    resetConfig();
    await new Promise((resolve) => server.close(resolve));
  });

  const idpToken = (
    key: CryptoKey,
    kid = "test-key",
    claims: Record<string, unknown> = { email: "Idp.User@Example.com" },
    subject = "user_2abc",
  ) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "ES256", kid })
      .setSubject(subject)
      .setIssuer("https://idp.example.com/")
      .setAudience("links")
      .setIssuedAt()
      .setExpirationTime("10m")
      .sign(key);

  const userOf = async (token: string) => {
    const response = await call("GET", "/api/workspaces", { token });
    expect(response.status).toBe(200);
    return db().user.findFirstOrThrow({ where: { personalWorkspace: { id: response.body.workspace.id } } });
  };

  it("accepts a token signed by the provider's key", async () => {
    const response = await call("GET", "/api/workspaces", { token: await idpToken(privateKey) });
    expect(response.status).toBe(200);
    const members = await call("GET", "/api/members", { token: await idpToken(privateKey) });
    expect(members.body.members[0].email).toBe("idp.user@example.com");
  });

  it("knows the user by (iss, sub): a changed e-mail is the same user, a shared e-mail is not", async () => {
    const first = await userOf(
      await idpToken(privateKey, "test-key", { email: "shared@example.com", email_verified: true }, "user_iss_sub_1"),
    );
    const renamed = await userOf(
      await idpToken(privateKey, "test-key", { email: "renamed@example.com", email_verified: true }, "user_iss_sub_1"),
    );
    const other = await userOf(
      await idpToken(privateKey, "test-key", { email: "shared@example.com", email_verified: true }, "user_iss_sub_2"),
    );
    expect(renamed.id).toBe(first.id);
    expect(renamed).toMatchObject({
      issuer: "https://idp.example.com/",
      subject: "user_iss_sub_1",
      email: "renamed@example.com",
      emailVerified: true,
    });
    expect(other.id).not.toBe(first.id);
  });

  it("keeps the e-mail informational unless the provider says email_verified", async () => {
    expect(
      await userOf(await idpToken(privateKey, "test-key", { email: "Unverified@Example.com" }, "user_unverified")),
    ).toMatchObject({ email: "unverified@example.com", emailVerified: false });
    expect(
      await userOf(
        await idpToken(privateKey, "test-key", { email: "unverified@example.com", email_verified: "true" }, "user_unverified"),
      ),
    ).toMatchObject({ emailVerified: true });
    expect(
      await userOf(
        await idpToken(privateKey, "test-key", { email: "unverified@example.com", email_verified: false }, "user_unverified"),
      ),
    ).toMatchObject({ emailVerified: false });
  });

  it("refuses a provider's token without iat, or whose claims have the wrong type", async () => {
    const withoutIat = await new SignJWT({ email: "a@example.com" })
      .setProtectedHeader({ alg: "ES256", kid: "test-key" })
      .setSubject("user_no_iat")
      .setIssuer("https://idp.example.com/")
      .setAudience("links")
      .setExpirationTime("10m")
      .sign(privateKey);
    expect((await call("GET", "/api/workspaces", { token: withoutIat })).status).toBe(401);
    const numericSub = await new SignJWT({ sub: 12345, email: "numeric@example.com" } as never)
      .setProtectedHeader({ alg: "ES256", kid: "test-key" })
      .setIssuer("https://idp.example.com/")
      .setAudience("links")
      .setIssuedAt()
      .setExpirationTime("10m")
      .sign(privateKey);
    const numeric = await call("GET", "/api/workspaces", { token: numericSub });
    expect(numeric.status).toBe(401);
    expect(numeric.body).toEqual({ error: UNAUTHENTICATED_MESSAGE });
  });

  it("refuses a token signed by another key, and a built-in HS256 token", async () => {
    const stranger = (await generateKeyPair("ES256")).privateKey;
    expect((await call("GET", "/api/workspaces", { token: await idpToken(stranger) })).status).toBe(401);
    const builtIn = await token({ email: "x@example.com" }, { issuer: "https://idp.example.com/", audience: "links" });
    expect((await call("GET", "/api/workspaces", { token: builtIn })).status).toBe(401);
  });
});
