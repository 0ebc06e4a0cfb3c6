import { mintApiKey } from "@/lib/auth/store";
import { setClock } from "@/lib/clock";
import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { newId } from "@/lib/db/random";
import { resetWriteLimiter } from "@/lib/http/write-limit";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage, type CreateSiweMessageParameters } from "viem/siwe";
import { afterEach, describe, expect, it, vi } from "vitest";
import { APP_ORIGIN, call, newUser } from "../support/api";

const NETWORK = "eip155:84532";
const CHAIN_ID = 84532;

afterEach(() => setClock(undefined));

function newWallet(): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey());
}

/** A machine account as a first purchase leaves it: kind machine, the wallet's DID, one live key. */
async function machineAccountOf(wallet: PrivateKeyAccount) {
  const workspaceId = newId("ws");
  await db().workspace.create({
    data: { id: workspaceId, name: "machine", kind: "machine", payerDid: `did:pkh:${NETWORK}:${wallet.address}` },
  });
  return { workspaceId, apiKey: await mintApiKey(workspaceId, null) };
}

async function freshNonce() {
  const response = await call("GET", "/api/machine-accounts/nonce");
  expect(response.status).toBe(200);
  return response.body as { nonce: string; expires_at: number; domain: string; uri: string; chain_id: number; version: "1" };
}

/** The message an agent builds from the nonce answer with viem's createSiweMessage, signed by `signer`. */
async function signedProof(wallet: PrivateKeyAccount, changes: Partial<CreateSiweMessageParameters> = {}, signer = wallet) {
  const fields = await freshNonce();
  const message = createSiweMessage({
    address: wallet.address,
    domain: fields.domain,
    uri: fields.uri,
    chainId: fields.chain_id,
    version: fields.version,
    nonce: fields.nonce,
    issuedAt: new Date(),
    statement: "Replace my machine account's API key.",
    ...changes,
  });
  return { message, signature: await signer.signMessage({ message }) };
}

const recover = (body: unknown) => call("POST", "/api/machine-accounts/key", { body });
const authenticates = async (apiKey: string) => (await call("GET", "/api/workspaces", { token: apiKey })).status === 200;

describe("GET /api/machine-accounts/nonce", () => {
  it("issues a single-use nonce with the fields the message must carry, not cached", async () => {
    const response = await call("GET", "/api/machine-accounts/nonce");
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.body).toEqual({
      nonce: expect.stringMatching(/^[0-9A-Za-z]{32}$/),
      expires_at: expect.any(Number),
      domain: "app.test.example",
      uri: APP_ORIGIN,
      chain_id: CHAIN_ID,
      version: "1",
    });
    expect(response.body.expires_at - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(await db().siweNonce.count({ where: { nonce: response.body.nonce } })).toBe(1);
    expect((await freshNonce()).nonce).not.toBe(response.body.nonce);
  });
});

describe("POST /api/machine-accounts/key", () => {
  it("replaces the key of the wallet's machine account: 200 with a new key, the old one 401 at once", async () => {
    const wallet = newWallet();
    const account = await machineAccountOf(wallet);
    const proof = await signedProof(wallet);
    const response = await recover(proof);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(Object.keys(response.body)).toEqual(["api_key"]);
    const newKey: string = response.body.api_key;
    expect(await authenticates(account.apiKey)).toBe(false);
    const workspace = (await call("GET", "/api/workspaces", { token: newKey })).body.workspace;
    expect(workspace).toMatchObject({ id: account.workspaceId, kind: "machine", credential: "api_key" });
    expect(await db().apiKey.count({ where: { workspaceId: account.workspaceId, revokedAt: null } })).toBe(1);
  });

  it("refuses a replayed message: its nonce was spent by the first recovery (401), and the key it gave stays", async () => {
    const wallet = newWallet();
    await machineAccountOf(wallet);
    const proof = await signedProof(wallet);
    const first = await recover(proof);
    expect(first.status).toBe(200);
    const replayed = await recover(proof);
    expect(replayed.status).toBe(401);
    expect(replayed.body.error).toMatch(
      /not issued by this service or has already been used.*GET \/api\/machine-accounts\/nonce/,
    );
    expect(await authenticates(first.body.api_key)).toBe(true);
  });

  it("gives one recovery to one nonce sent twice at once", async () => {
    const wallet = newWallet();
    const account = await machineAccountOf(wallet);
    const proof = await signedProof(wallet);
    const responses = await Promise.all([recover(proof), recover(proof), recover(proof)]);
    expect(responses.map((response) => response.status).sort()).toEqual([200, 401, 401]);
    expect(await db().apiKey.count({ where: { workspaceId: account.workspaceId, revokedAt: null } })).toBe(1);
  });

  it("refuses a nonce this service never issued (401)", async () => {
    const wallet = newWallet();
    await machineAccountOf(wallet);
    const message = createSiweMessage({
      address: wallet.address,
      domain: "app.test.example",
      uri: APP_ORIGIN,
      chainId: CHAIN_ID,
      version: "1",
      nonce: "madeUpNonce12345",
      issuedAt: new Date(),
    });
    const response = await recover({ message, signature: await wallet.signMessage({ message }) });
    expect(response.status).toBe(401);
  });

  it.each([
    [
      "another domain",
      { domain: "evil.example" },
      /is for evil\.example, not this service; its domain must be app\.test\.example/,
    ],
    ["another scheme", { scheme: "https" }, /not this service/],
    [
      "a URI on another origin",
      { uri: "https://evil.example/login" },
      /URI https:\/\/evil\.example\/login is not on this service/,
    ],
    ["another chain", { chainId: 8453 }, /chain 8453; machine accounts here pay on eip155:84532/],
    ["a Not Before in the future", { notBefore: new Date(Date.now() + 60 * 60_000) }, /not valid before/],
  ])("refuses a message with %s (400), and keeps the old key", async (_label, changes, reason) => {
    const wallet = newWallet();
    const account = await machineAccountOf(wallet);
    const response = await recover(await signedProof(wallet, changes));
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(reason);
    expect(await authenticates(account.apiKey)).toBe(true);
  });

  it("refuses an expired message (410)", async () => {
    const wallet = newWallet();
    const account = await machineAccountOf(wallet);
    const response = await recover(
      await signedProof(wallet, { issuedAt: new Date(Date.now() - 120_000), expirationTime: new Date(Date.now() - 60_000) }),
    );
    expect(response.status).toBe(410);
    expect(response.body.error).toMatch(/message expired at .*fresh nonce/);
    expect(await authenticates(account.apiKey)).toBe(true);
  });

  it("refuses a nonce used after its ten minutes (410)", async () => {
    const wallet = newWallet();
    const account = await machineAccountOf(wallet);
    const proof = await signedProof(wallet);
    const later = Date.now() + 10 * 60_000 + 1_000;
    setClock({ now: () => later });
    const response = await recover(proof);
    expect(response.status).toBe(410);
    expect(response.body.error).toMatch(/nonce has expired/);
    expect(await authenticates(account.apiKey)).toBe(true);
  });

  it("refuses a signature by another wallet than the one the message names (401), without spending the nonce", async () => {
    const wallet = newWallet();
    const account = await machineAccountOf(wallet);
    const impostor = newWallet();
    const forged = await signedProof(wallet, {}, impostor);
    const response = await recover(forged);
    expect(response.status).toBe(401);
    expect(response.body.error).toMatch(new RegExp(`not made by ${wallet.address}`));
    expect(await authenticates(account.apiKey)).toBe(true);

    const message = forged.message;
    expect((await recover({ message, signature: await wallet.signMessage({ message }) })).status).toBe(200);
  });

  it("answers 404 for a wallet that has no machine account, and for a person's workspace", async () => {
    const stranger = newWallet();
    await newUser();
    const response = await recover(await signedProof(stranger));
    expect(response.status).toBe(404);
    expect(response.body.error).toMatch(new RegExp(`No machine account belongs to ${stranger.address} on eip155:84532`));
  });

  it.each([
    [
      "text that is no SIWE message",
      { message: "please give me a key", signature: `0x${"11".repeat(65)}` },
      /not a Sign-In-with-Ethereum/,
    ],
    ["a signature that is not hex", { message: "x", signature: "not-a-signature" }, /"signature" is invalid/],
    ["an unknown field", { message: "x", signature: `0x${"11".repeat(65)}`, address: "0x0" }, /does not accept: address/],
    ["no body", undefined, /"message" is invalid/],
  ])("refuses %s with 400", async (_label, body, reason) => {
    const response = await recover(body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(reason);
  });

  it("counts both requests against the write budget of the client's address (429 when spent)", async () => {
    vi.stubEnv("WRITE_RATE_LIMIT_PER_MINUTE", "2");
    resetConfig();
    await resetWriteLimiter();
    try {
      const from = { "x-forwarded-for": "198.51.100.23" };
      expect((await call("GET", "/api/machine-accounts/nonce", { headers: from })).status).toBe(200);
      expect((await call("POST", "/api/machine-accounts/key", { headers: from, body: {} })).status).toBe(400);
      const limited = await call("GET", "/api/machine-accounts/nonce", { headers: from });
      expect(limited.status).toBe(429);
      expect(limited.body.error).toMatch(/Too many writes/);
      expect((await call("POST", "/api/machine-accounts/key", { headers: from, body: {} })).status).toBe(429);
    } finally {
      vi.unstubAllEnvs();
      resetConfig();
      await resetWriteLimiter();
    }
  });
});
