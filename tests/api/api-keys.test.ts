import { generateApiKey, hasValidFormat, hashApiKey } from "@/lib/auth/api-keys";
import { mintApiKey } from "@/lib/auth/store";
import { db } from "@/lib/db/client";
import { newId } from "@/lib/db/random";
import { rotateKeyAsOwner } from "@/lib/workspaces/api-key";
import type { Principal } from "@/lib/workspaces/types";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { call, joinWorkspace, newUser } from "../support/api";

async function claim(token: string) {
  return call("POST", "/api/billing/claim", { token });
}

/** Every text value in every table, to prove a secret was never written anywhere. */
async function databaseText(): Promise<string> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ tablename: string }>(
      "SELECT tablename FROM pg_tables WHERE schemaname = 'public'",
    );
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

describe("POST /api/keys/rotate", () => {
  const rotate = (apiKey: string) => call("POST", "/api/keys/rotate", { token: apiKey });
  const liveKeys = (workspaceId: string) => db().apiKey.count({ where: { workspaceId, revokedAt: null } });

  it("returns a new key once; the old key stops working at once and only the new one's hash is stored", async () => {
    const owner = await newUser();
    const oldKey = (await claim(owner.token)).body.api_key;
    expect((await call("GET", "/api/links", { token: oldKey })).status).toBe(200);

    const rotated = await rotate(oldKey);
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get("cache-control")).toBe("no-store");
    const newKey: string = rotated.body.api_key;
    expect(Object.keys(rotated.body)).toEqual(["api_key"]);
    expect(hasValidFormat(newKey, "plk")).toBe(true);
    expect(newKey).not.toBe(oldKey);

    const refused = await call("GET", "/api/links", { token: oldKey });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatch(/valid API key/);
    expect((await rotate(oldKey)).status).toBe(401);
    const viaNew = await call("GET", "/api/workspaces", { token: newKey });
    expect(viaNew.body.workspace).toMatchObject({ id: owner.workspaceId, credential: "api_key" });
    expect(viaNew.body.workspace.api_key.hint).toBe(`plk_…${newKey.slice(-4)}`);
    expect(await liveKeys(owner.workspaceId)).toBe(1);

    const text = await databaseText();
    expect(text).not.toContain(newKey);
    expect(text).toContain(hashApiKey(newKey));
  });

  it("rotates a machine account's key, which has no members to revoke it", async () => {
    const workspaceId = newId("ws");
    await db().workspace.create({
      data: { id: workspaceId, name: "machine", kind: "machine", payerDid: `did:pkh:eip155:84532:0x${"ab".repeat(20)}` },
    });
    const oldKey = await mintApiKey(workspaceId, null);
    const rotated = await rotate(oldKey);
    expect(rotated.status).toBe(200);
    expect((await call("GET", "/api/workspaces", { token: rotated.body.api_key })).body.workspace).toMatchObject({
      id: workspaceId,
      kind: "machine",
    });
    expect((await call("GET", "/api/workspaces", { token: oldKey })).status).toBe(401);
  });

  it("gives exactly one new key to concurrent rotations with the same key", async () => {
    const owner = await newUser();
    const oldKey = (await claim(owner.token)).body.api_key;
    const responses = await Promise.all(Array.from({ length: 8 }, () => rotate(oldKey)));
    const winners = responses.filter((response) => response.status === 200);
    expect(winners).toHaveLength(1);
    expect(responses.filter((response) => response.status === 401)).toHaveLength(7);
    expect(await liveKeys(owner.workspaceId)).toBe(1);
    expect((await call("GET", "/api/links", { token: winners[0]!.body.api_key })).status).toBe(200);
  });

  it("needs the key itself: a session token gets 403 naming the way, no credential 401", async () => {
    const owner = await newUser();
    await claim(owner.token);
    const withSession = await rotate(owner.token);
    expect(withSession.status).toBe(403);
    expect(withSession.body.error).toMatch(/Rotate an API key by sending this request with that key/);
    const anonymous = await call("POST", "/api/keys/rotate");
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toEqual(expect.any(String));
    expect(await liveKeys(owner.workspaceId)).toBe(1);
  });
});

describe("rotateKeyAsOwner (the dashboard's Rotate)", () => {
  const asSession = (user: { userId: string; workspaceId: string }, role: "owner" | "admin"): Principal => ({
    kind: "session",
    userId: user.userId,
    workspaceId: user.workspaceId,
    role,
  });

  it("replaces the live key for an owner: the new key works, the old one is refused at once", async () => {
    const owner = await newUser();
    const oldKey = (await claim(owner.token)).body.api_key;
    const newKey = await rotateKeyAsOwner(asSession(owner, "owner"));
    expect(hasValidFormat(newKey, "plk")).toBe(true);
    expect((await call("GET", "/api/links", { token: oldKey })).status).toBe(401);
    expect((await call("GET", "/api/links", { token: newKey })).status).toBe(200);
    expect(await db().apiKey.count({ where: { workspaceId: owner.workspaceId, revokedAt: null } })).toBe(1);
  });

  it("is an owner's alone, and says so when there is no key to rotate", async () => {
    const owner = await newUser();
    await expect(rotateKeyAsOwner(asSession(owner, "owner"))).rejects.toMatchObject({ code: "not_found" });
    const key = (await claim(owner.token)).body.api_key;
    await expect(rotateKeyAsOwner(asSession(owner, "admin"))).rejects.toMatchObject({ code: "forbidden" });
    expect((await call("GET", "/api/links", { token: key })).status).toBe(200);
  });
});
