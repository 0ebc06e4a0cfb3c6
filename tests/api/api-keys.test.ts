import pg from "pg";
import { describe, expect, it } from "vitest";
import { generateApiKey, hasValidFormat, hashApiKey } from "@/lib/auth/api-keys";
import { db } from "@/lib/db/client";
import { call, joinWorkspace, newUser } from "../support/api";

async function claim(token: string) {
  return call("POST", "/api/billing/claim", { token });
}

/** Every text value in every table, to prove a secret was never written anywhere. */
async function databaseText(): Promise<string> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
    const dumps = await Promise.all(tables.map(({ tablename }) => client.query(`SELECT * FROM "${tablename}"`)));
    return JSON.stringify(dumps.map((dump) => dump.rows));
  } finally {
    await client.end();
  }
}

describe("key format", () => {
  it("has the product prefix, 32 random characters and a checksum that catches a typo", () => {
    const key = generateApiKey("plk");
    expect(key).toMatch(/^plk_[0-9A-Za-z]{38}$/);
    expect(hasValidFormat(key, "plk")).toBe(true);
    const typo = key.slice(0, 10) + (key[10] === "a" ? "b" : "a") + key.slice(11);
    expect(hasValidFormat(typo, "plk")).toBe(false);
    expect(hasValidFormat(key, "other")).toBe(false);
    expect(new Set(Array.from({ length: 200 }, () => generateApiKey("plk"))).size).toBe(200);
  });
});

describe("POST /api/billing/claim", () => {
  it("returns the key once, stores only its SHA-256, and the key authenticates as the workspace", async () => {
    const owner = await newUser();
    const response = await claim(owner.token);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const apiKey: string = response.body.api_key;
    expect(hasValidFormat(apiKey, "plk")).toBe(true);

    const text = await databaseText();
    expect(text).not.toContain(apiKey);
    expect(text).not.toContain(apiKey.slice(4, 36));
    expect(text).toContain(hashApiKey(apiKey));

    const viaKey = await call("GET", "/api/workspaces", { token: apiKey });
    expect(viaKey.body.workspace).toMatchObject({ id: owner.workspaceId, credential: "api_key", role: null });
    expect(viaKey.body.workspace.api_key.hint).toBe(`plk_…${apiKey.slice(-4)}`);
  });

  it("refuses a second claim while a key is live (409), and after revocation allows a new one", async () => {
    const owner = await newUser();
    const first = (await claim(owner.token)).body.api_key;
    const again = await claim(owner.token);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/already has a live API key/);

    const revoked = await call("DELETE", "/api/billing/claim", { token: owner.token });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toEqual(expect.any(Number));
    expect((await call("GET", "/api/links", { token: first })).status).toBe(401);

    const record = await db().apiKey.findFirstOrThrow({ where: { keyHash: hashApiKey(first) } });
    expect(record.revokedAt).not.toBeNull();
    expect(record.revokedByUserId).toEqual(expect.any(String));

    const second = await claim(owner.token);
    expect(second.status).toBe(200);
    expect(second.body.api_key).not.toBe(first);
    expect((await call("DELETE", "/api/billing/claim", { token: owner.token })).status).toBe(200);
    expect((await call("DELETE", "/api/billing/claim", { token: owner.token })).status).toBe(404);
  });

  it("gives exactly one key to concurrent claims", async () => {
    const owner = await newUser();
    const responses = await Promise.all(Array.from({ length: 10 }, () => claim(owner.token)));
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    expect(responses.filter((response) => response.status === 409)).toHaveLength(9);
  });

  it("cannot be called with an API key, which also ignores X-Workspace-Id", async () => {
    const owner = await newUser();
    const otherWorkspace = (await newUser()).workspaceId;
    const apiKey = (await claim(owner.token)).body.api_key;
    const viaKey = await claim(apiKey);
    expect(viaKey.status).toBe(403);
    expect(viaKey.body.error).toMatch(/API key cannot mint/);
    expect((await call("DELETE", "/api/billing/claim", { token: apiKey })).status).toBe(403);

    const elsewhere = await call("GET", "/api/workspaces", { token: apiKey, headers: { "x-workspace-id": otherWorkspace } });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.workspace.id).not.toBe(otherWorkspace);
  });

  it("lets a member neither claim nor revoke the workspace key", async () => {
    const owner = await newUser();
    const asMember = await joinWorkspace(await newUser(), owner.workspaceId, "member");
    expect((await call("POST", "/api/billing/claim", asMember)).status).toBe(403);
    await claim(owner.token);
    expect((await call("DELETE", "/api/billing/claim", asMember)).status).toBe(403);
  });
});
