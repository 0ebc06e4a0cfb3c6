import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { newId, randomString } from "@/lib/db/random";
import { resetWriteLimiter } from "@/lib/http/write-limit";
import { SLUG_ALPHABET } from "@/lib/links/slugs";
import { log } from "@/lib/log";
import { API_KEY_REPLAY_WINDOW_MS } from "@/lib/payments/fulfilment";
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
} from "@x402/core/http";
import { Challenge, Credential, PaymentRequest, Receipt } from "mppx";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { type Address, getAddress } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type ApiResponse, APP_ORIGIN, call, newUser } from "../support/api";
import { appFetch, mppAgent, x402Agent } from "../support/payments/agents";
import { type RunningFacilitator, startFacilitator } from "../support/payments/facilitator";
import { Eip3009Ledger, type Transfer } from "../support/payments/ledger";
import { visit } from "../support/visits";

const NETWORK = "eip155:84532";
const TOKEN = { address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as Address, chainId: 84532, name: "USDC", version: "2" };
const PRICE = 500_000n;
const LINKS_URL = `${APP_ORIGIN}/api/links`;
const MPP_SECRET_KEY = "test-mpp-secret-key-of-at-least-32-bytes";

const recipient = privateKeyToAccount(generatePrivateKey()).address;
const ledger = new Eip3009Ledger(TOKEN, privateKeyToAccount(generatePrivateKey()).address);
let facilitator: RunningFacilitator;

beforeAll(async () => {
  facilitator = await startFacilitator(NETWORK, ledger);
  useSettings({});
});

afterAll(async () => {
  vi.unstubAllEnvs();
  resetConfig();
  await facilitator.close();
});

afterEach(() => {
  ledger.duringSettlement = undefined;
  vi.useRealTimers();
});

/** The payment configuration of these tests, with `overrides` (an empty string unsets a variable). */
function useSettings(overrides: Record<string, string>): void {
  const settings = {
    LINK_PRICE: "0.50",
    PAYMENT_NETWORK: NETWORK,
    PAYMENT_ASSET: TOKEN.address,
    PAYMENT_ASSET_NAME: TOKEN.name,
    PAYMENT_ASSET_VERSION: TOKEN.version,
    PAYMENT_ASSET_DECIMALS: "6",
    PAYMENT_RECIPIENT: recipient,
    X402_FACILITATOR_URL: facilitator.url,
    MPP_SECRET_KEY,
    ...overrides,
  };
  for (const [name, value] of Object.entries(settings)) vi.stubEnv(name, value);
  resetConfig();
}

let pathCounter = 0;

/** A fresh destination, so no two tests buy the same thing. */
function order(extra: Record<string, unknown> = {}) {
  return { destination: `https://example.com/bought/${++pathCounter}`, ...extra };
}

function newWallet(funds = 10_000_000n): PrivateKeyAccount {
  const wallet = privateKeyToAccount(generatePrivateKey());
  ledger.fund(wallet.address, funds);
  return wallet;
}

function transfersFrom(wallet: PrivateKeyAccount) {
  return ledger.transfers.filter((transfer) => transfer.from === wallet.address);
}

const buy = (body: unknown, headers: Record<string, string> = {}) => call("POST", "/api/links", { body, headers });

/** The 402 for this body, as an agent receives it. */
function challengeFor(body: unknown): Promise<Response> {
  return appFetch(LINKS_URL, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

/** An `Authorization: Payment …` value made by the real MPP client for this body's challenge. */
async function mppCredential(wallet: PrivateKeyAccount, body: unknown): Promise<string> {
  return mppAgent(wallet, TOKEN).createCredential(await challengeFor(body));
}

async function x402Signature(wallet: PrivateKeyAccount, body: unknown): Promise<string> {
  return x402Agent(wallet).paymentSignature(await challengeFor(body));
}

function expectRefusal(response: ApiResponse, reason: RegExp): void {
  expect(response.status).toBe(402);
  expect(response.body.error).toMatch(reason);
  expect(response.body.error).toMatch(/Existing links keep resolving/);
  expect(response.headers.get("www-authenticate")).toMatch(/^Payment /);
  expect(response.headers.get("payment-required")).toBeTruthy();
}

function decodedMpp(credential: string) {
  return Credential.deserialize(credential);
}

/** What anyone can write once a payment is on chain: an x402 payload naming its payer and nonce, with no signature. */
function forgedX402({ from, nonce }: Transfer): string {
  const payload = {
    x402Version: 2,
    accepted: {
      scheme: "exact",
      network: NETWORK,
      asset: TOKEN.address,
      payTo: recipient,
      amount: String(PRICE),
      maxTimeoutSeconds: 300,
    },
    payload: { authorization: { from, nonce } },
  };
  return Buffer.from(JSON.stringify(payload)).toString("base64");
}

/** Runs `steps` while the first link written for `destination` fails: a crash between settlement and link creation. */
async function withCrashAfterSettlement(destination: string, steps: () => Promise<void>): Promise<void> {
  await db().$executeRawUnsafe(`CREATE SEQUENCE crash_once`);
  await db().$executeRawUnsafe(`
    CREATE FUNCTION crash_once() RETURNS trigger AS $$
    BEGIN
      IF NEW.destination = '${destination}' THEN
        IF nextval('crash_once') = 1 THEN RAISE EXCEPTION 'simulated crash after settlement'; END IF;
      END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql`);
  await db().$executeRawUnsafe(`CREATE TRIGGER crash_once BEFORE INSERT ON links FOR EACH ROW EXECUTE FUNCTION crash_once()`);
  vi.spyOn(log(), "error").mockImplementation(() => undefined);
  try {
    await steps();
  } finally {
    vi.restoreAllMocks();
    await db().$executeRawUnsafe(`DROP TRIGGER crash_once ON links`);
    await db().$executeRawUnsafe(`DROP FUNCTION crash_once`);
    await db().$executeRawUnsafe(`DROP SEQUENCE crash_once`);
  }
}

describe("a request without credentials", () => {
  it("gets 402 with both challenges, no-store and the PaymentRequired body", async () => {
    const body = order({ slug: "agent-menu" });
    const response = await buy(body);
    expect(response.status).toBe(402);
    expect(response.headers.get("cache-control")).toMatch(/no-store/);
    expect(response.body).toEqual({
      error: expect.stringMatching(/0\.50 USDC buys one permanent link.*Existing links keep resolving\./s),
      price: "0.50",
      currency: "USDC",
      pay: ["mpp", "x402"],
      docs: `${APP_ORIGIN}/docs/payments`,
    });

    const challenge = Challenge.deserialize(response.headers.get("www-authenticate")!);
    expect(challenge).toMatchObject({ method: "evm", intent: "charge", realm: "app.test.example" });
    expect(challenge.request).toMatchObject({
      amount: String(PRICE),
      currency: TOKEN.address,
      recipient,
      methodDetails: { chainId: TOKEN.chainId, decimals: 6 },
    });
    const lifetime = new Date(challenge.expires!).getTime() - Date.now();
    expect(lifetime).toBeGreaterThan(0);
    expect(lifetime).toBeLessThanOrEqual(5 * 60_000);
    expect(PaymentRequest.deserialize(challenge.opaque!)).toEqual({ destination_sha256: expect.any(String), slug: "agent-menu" });

    const x402 = decodePaymentRequiredHeader(response.headers.get("payment-required")!);
    expect(x402.x402Version).toBe(2);
    expect(x402.resource.url).toBe(LINKS_URL);
    expect(x402.accepts).toEqual([
      {
        scheme: "exact",
        network: NETWORK,
        amount: String(PRICE),
        asset: TOKEN.address,
        payTo: recipient,
        maxTimeoutSeconds: 300,
        extra: { assetTransferMethod: "eip3009", name: "USDC", version: "2" },
      },
    ]);
  });

  it.each([
    ["an invalid body", { destination: "ftp://example.com/file" }, 400],
    ["an unknown field", { destination: "https://example.com/", colour: "x" }, 400],
    ["a title (needs an account)", { destination: "https://example.com/", title: "x" }, 400],
    ["tags (need an account)", { destination: "https://example.com/", tags: ["x"] }, 400],
    ["a slug outside the alphabet", { destination: "https://example.com/", slug: "hello" }, 400],
    ["a custom domain (needs an account)", { destination: "https://example.com/", domain_id: "dom_x" }, 400],
    ["a private destination", { destination: "http://10.0.0.1/admin" }, 422],
    ["a destination on the safety blocklist", { destination: "http://malware.testing.google.test/testing/malware/" }, 422],
  ])("is refused before any challenge when it has %s", async (_label, body, status) => {
    const credentials: Record<string, string>[] = [{}, { authorization: "Payment e30" }, { "payment-signature": "e30=" }];
    for (const headers of credentials) {
      const response = await buy(body, headers);
      expect(response.status).toBe(status);
      expect(response.headers.get("www-authenticate")).toBeNull();
      expect(response.headers.get("payment-required")).toBeNull();
    }
  });

  it("is refused with 409 before any challenge when the custom slug is taken", async () => {
    const owner = await newUser();
    await db().link.create({
      data: {
        id: newId("lnk"),
        workspaceId: owner.workspaceId,
        slug: "taken-name",
        reusable: false,
        destination: "https://example.org/",
      },
    });
    const response = await buy(order({ slug: "taken-name" }));
    expect(response.status).toBe(409);
    expect(response.headers.get("www-authenticate")).toBeNull();
  });

  it("counts against a write budget per client address (429 when spent)", async () => {
    useSettings({ WRITE_RATE_LIMIT_PER_MINUTE: "2" });
    await resetWriteLimiter();
    try {
      const from = (address: string) => ({ "x-forwarded-for": address });
      expect((await buy(order(), from("203.0.113.7"))).status).toBe(402);
      expect((await buy(order(), from("203.0.113.7"))).status).toBe(402);
      const limited = await buy(order(), from("203.0.113.7"));
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toBeTruthy();
      expect((await buy(order(), from("203.0.113.8"))).status).toBe(402);
    } finally {
      vi.stubEnv("WRITE_RATE_LIMIT_PER_MINUTE", "10000");
      useSettings({});
      await resetWriteLimiter();
    }
  });

  it("answers 503 where machine payments are not configured, and still validates first", async () => {
    useSettings({ PAYMENT_RECIPIENT: "" });
    try {
      expect((await buy(order())).status).toBe(503);
      expect((await buy({ destination: "nope" })).status).toBe(400);
    } finally {
      useSettings({});
    }
  });
});

describe("paying with MPP", () => {
  it("buys the link with the real mppx client: 201 PaidLink, a receipt, an API key, one transfer", async () => {
    const wallet = newWallet();
    const body = order({ slug: "mpp-bought" });
    const response = await mppAgent(wallet, TOKEN).fetch(LINKS_URL, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(201);
    const paid = await response.json();
    const [transfer] = transfersFrom(wallet);
    expect(paid).toEqual({
      id: expect.stringMatching(/^lnk_/),
      slug: "mpp-bought",
      destination: body.destination,
      host: null,
      status: 1,
      short_url: "http://s.test.example/mpp-bought",
      created_at: expect.any(Number),
      archived_at: null,
      title: null,
      tags: [],
      imported_from: null,
      original_created_at: null,
      rules: [],
      schedule: [],
      scan_limit: null,
      password_protected: false,
      preview: null,
      preview_count: 0,
      receipt: transfer!.transaction,
      api_key: expect.stringMatching(/^plk_/),
    });
    expect(Receipt.deserialize(response.headers.get("payment-receipt")!)).toMatchObject({
      method: "evm",
      status: "success",
      reference: transfer!.transaction,
    });
    expect(transfersFrom(wallet)).toEqual([expect.objectContaining({ to: recipient, value: PRICE })]);
    expect(ledger.balanceOf(wallet.address)).toBe(10_000_000n - PRICE);

    const workspace = await db().workspace.findFirstOrThrow({ where: { links: { some: { id: paid.id } } } });
    expect(workspace).toMatchObject({ kind: "machine", payerDid: `did:pkh:${NETWORK}:${wallet.address}` });
  });
});

describe("a bought link resolves at once", () => {
  it("drops the short host's cached miss for a custom slug when a payment commits it", async () => {
    const slug = `bought-${randomString(SLUG_ALPHABET, 6)}`;
    expect((await visit(`/${slug}`)).status).toBe(404);
    const body = order({ slug });
    const response = await mppAgent(newWallet(), TOKEN).fetch(LINKS_URL, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(201);
    const visited = await visit(`/${slug}`);
    expect(visited.status).toBe(302);
    expect(visited.headers.Location).toBe(body.destination);
  });
});

describe("paying with x402", () => {
  it("buys the link with the real @x402/fetch client (PAYMENT-SIGNATURE): 201, PAYMENT-RESPONSE and Payment-Receipt", async () => {
    const wallet = newWallet();
    const body = order();
    const response = await x402Agent(wallet).fetch(LINKS_URL, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(201);
    const paid = await response.json();
    const [transfer] = transfersFrom(wallet);
    expect(paid).toMatchObject({ destination: body.destination, receipt: transfer!.transaction, api_key: expect.any(String) });
    expect(paid.slug).toMatch(new RegExp(`^[${SLUG_ALPHABET}]{7}$`));
    expect(decodePaymentResponseHeader(response.headers.get("payment-response")!)).toMatchObject({
      success: true,
      payer: wallet.address,
      transaction: transfer!.transaction,
      network: NETWORK,
    });
    expect(Receipt.deserialize(response.headers.get("payment-receipt")!).reference).toBe(transfer!.transaction);
    expect(transfersFrom(wallet)).toHaveLength(1);
  });

  it("accepts the same x402 payload sent as Authorization: Payment, as the contract words it", async () => {
    const wallet = newWallet();
    const body = order();
    const signature = await x402Signature(wallet, body);
    const response = await buy(body, { authorization: `Payment ${signature}` });
    expect(response.status).toBe(201);
    expect(response.body.receipt).toBe(transfersFrom(wallet)[0]!.transaction);
    expect(response.headers.get("payment-receipt")).toBeTruthy();
  });
});

describe("one payment, exactly one link", () => {
  it.each([
    [
      "MPP",
      (wallet: PrivateKeyAccount, body: unknown) => mppCredential(wallet, body).then((value) => ({ authorization: value })),
    ],
    [
      "x402",
      (wallet: PrivateKeyAccount, body: unknown) => x402Signature(wallet, body).then((value) => ({ "payment-signature": value })),
    ],
  ])(
    "replays the same 201 (api_key included, for an hour) to a resent %s credential, without " +
      "settling again, and refuses it for another purchase",
    async (_protocol, credentialFor) => {
      const wallet = newWallet();
      const body = order();
      const headers = await credentialFor(wallet, body);
      const settlesBefore = facilitator.calls.settle;
      const first = await buy(body, headers);
      const again = await buy(body, headers);
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get("payment-receipt")).toBe(first.headers.get("payment-receipt"));
      expect(facilitator.calls.settle - settlesBefore).toBe(1);
      expect(transfersFrom(wallet)).toHaveLength(1);

      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(Date.now() + API_KEY_REPLAY_WINDOW_MS + 60_000);
      const later = await buy(body, headers);
      expect(later.status).toBe(201);
      expect(later.body).toEqual({ ...first.body, api_key: undefined });
      vi.useRealTimers();

      const elsewhere = await buy(order(), headers);
      expectRefusal(elsewhere, /another destination|another request/);
      expect(transfersFrom(wallet)).toHaveLength(1);
      expect(await db().link.count({ where: { workspaceId: (await machineAccountOf(wallet)).id } })).toBe(1);
    },
  );

  it("stops replaying the api_key once the key has authenticated a request, its sealed copy erased by that first use", async () => {
    const wallet = newWallet();
    const body = order();
    const headers = { authorization: await mppCredential(wallet, body) };
    const first = await buy(body, headers);
    const apiKey = first.body.api_key as string;
    expect((await buy(body, headers)).body.api_key).toBe(apiKey);
    const sealedCopy = () =>
      db().apiKey.findFirstOrThrow({
        where: { workspace: { payerDid: `did:pkh:${NETWORK}:${wallet.address}` } },
        select: { replaySealed: true },
      });
    expect((await sealedCopy()).replaySealed).toEqual(expect.any(String));

    expect((await call("GET", "/api/links", { token: apiKey })).status).toBe(200);
    expect((await sealedCopy()).replaySealed).toBeNull();
    const again = await buy(body, headers);
    expect(again.status).toBe(201);
    expect(again.body).toEqual({ ...first.body, api_key: undefined });
    expect(transfersFrom(wallet)).toHaveLength(1);
  });

  it("gives one link and one settlement to the same credential sent twice at once", async () => {
    const wallet = newWallet();
    const body = order();
    const headers = { authorization: await mppCredential(wallet, body) };
    const settlesBefore = facilitator.calls.settle;
    const [one, two] = await Promise.all([buy(body, headers), buy(body, headers)]);
    expect([one.status, two.status]).toEqual([201, 201]);
    expect(two.body).toEqual(one.body);
    expect(facilitator.calls.settle - settlesBefore).toBe(1);
    expect(transfersFrom(wallet)).toHaveLength(1);
  });

  it("replays the same 201 to an identical resend of a custom-slug purchase, whose slug is now its own", async () => {
    const wallet = newWallet();
    const latecomer = newWallet();
    const body = order({ slug: "resent-custom" });
    const headers = { authorization: await mppCredential(wallet, body) };
    const latecomerHeaders = { authorization: await mppCredential(latecomer, body) };
    const first = await buy(body, headers);
    const again = await buy(body, headers);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ slug: "resent-custom", api_key: expect.stringMatching(/^plk_/) });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("payment-receipt")).toBe(first.headers.get("payment-receipt"));
    expect(transfersFrom(wallet)).toHaveLength(1);

    expect((await buy(body, latecomerHeaders)).status).toBe(409);
    expect(transfersFrom(latecomer)).toHaveLength(0);
  });

  it("heals a crash between settlement and link creation on the next resend, never charging twice", async () => {
    const wallet = newWallet();
    const body = order();
    await withCrashAfterSettlement(body.destination, async () => {
      const headers = { "payment-signature": await x402Signature(wallet, body) };
      const lost = await buy(body, headers);
      expect(lost.status).toBe(500);
      expect(transfersFrom(wallet)).toHaveLength(1);
      expect(await db().link.count({ where: { destination: body.destination } })).toBe(0);

      const healed = await buy(body, headers);
      expect(healed.status).toBe(201);
      expect(healed.body).toMatchObject({
        destination: body.destination,
        receipt: transfersFrom(wallet)[0]!.transaction,
        api_key: expect.any(String),
      });
      expect(transfersFrom(wallet)).toHaveLength(1);
      expect(await db().link.count({ where: { destination: body.destination } })).toBe(1);
    });
  });

  it("heals a crash after settlement even when someone else took the custom slug meanwhile: an allocated slug, and a notice", async () => {
    const wallet = newWallet();
    const squatter = await newUser();
    const body = order({ slug: "taken-during-crash" });
    await withCrashAfterSettlement(body.destination, async () => {
      const headers = { "payment-signature": await x402Signature(wallet, body) };
      expect((await buy(body, headers)).status).toBe(500);
      await db().link.create({
        data: {
          id: newId("lnk"),
          workspaceId: squatter.workspaceId,
          slug: "taken-during-crash",
          reusable: false,
          destination: "https://example.org/",
        },
      });

      const healed = await buy(body, headers);
      expect(healed.status).toBe(201);
      expect(healed.body).toMatchObject({
        destination: body.destination,
        receipt: transfersFrom(wallet)[0]!.transaction,
        api_key: expect.any(String),
      });
      expect(healed.body.slug).toMatch(new RegExp(`^[${SLUG_ALPHABET}]{7}$`));
      expect(healed.body.notice).toMatch(/"taken-during-crash" was taken/);
      expect(transfersFrom(wallet)).toHaveLength(1);
    });
  });

  it("refuses a forged x402 payload naming a fulfilled payment's payer and nonce: no replay of its link or api_key", async () => {
    const victim = newWallet();
    const body = order();
    expect((await buy(body, { "payment-signature": await x402Signature(victim, body) })).status).toBe(201);

    const forged = await buy(body, { "payment-signature": forgedX402(transfersFrom(victim)[0]!) });
    expectRefusal(forged, /payment is spent/);
    expect(forged.body).not.toHaveProperty("api_key");
    expect(forged.body).not.toHaveProperty("short_url");
    expect(await db().link.count({ where: { destination: body.destination } })).toBe(1);
    expect(transfersFrom(victim)).toHaveLength(1);
  });

  it("refuses a forged x402 payload naming a settled payment's payer and nonce, and leaves the link to the payer's resend", async () => {
    const victim = newWallet();
    const body = order();
    await withCrashAfterSettlement(body.destination, async () => {
      const headers = { "payment-signature": await x402Signature(victim, body) };
      expect((await buy(body, headers)).status).toBe(500);

      const forged = await buy(body, { "payment-signature": forgedX402(transfersFrom(victim)[0]!) });
      expectRefusal(forged, /payment is spent/);
      expect(forged.body).not.toHaveProperty("api_key");
      expect(await db().link.count({ where: { destination: body.destination } })).toBe(0);

      const healed = await buy(body, headers);
      expect(healed.status).toBe(201);
      expect(healed.body.api_key).toMatch(/^plk_/);
      expect(transfersFrom(victim)).toHaveLength(1);
    });
  });

  it("still delivers a link when the slug is taken while the payment settles: an allocated slug, and a notice", async () => {
    const wallet = newWallet();
    const squatter = await newUser();
    const body = order({ slug: "contested-during-pay" });
    const headers = { authorization: await mppCredential(wallet, body) };
    ledger.duringSettlement = async () => {
      await db().link.create({
        data: {
          id: newId("lnk"),
          workspaceId: squatter.workspaceId,
          slug: "contested-during-pay",
          reusable: false,
          destination: "https://example.org/",
        },
      });
    };
    const response = await buy(body, headers);
    expect(response.status).toBe(201);
    expect(response.body.slug).toMatch(new RegExp(`^[${SLUG_ALPHABET}]{7}$`));
    expect(response.body.destination).toBe(body.destination);
    expect(response.body.notice).toMatch(/"contested-during-pay" was taken/);
    expect(transfersFrom(wallet)).toHaveLength(1);
  });
});

describe("credentials that cannot pay for this request", () => {
  it.each([
    [
      "another destination",
      (body: { destination: string }) => ({ ...body, destination: `${body.destination}/other` }),
      /another destination/,
    ],
    [
      "another slug",
      (body: { destination: string }) => ({ ...body, slug: "other-name" }),
      /allocated slug, and this request asks for the slug "other-name"/,
    ],
  ])("refuses an MPP credential made for %s, and charges nothing", async (_label, change, reason) => {
    const wallet = newWallet();
    const body = order();
    const response = await buy(change(body), { authorization: await mppCredential(wallet, body) });
    expectRefusal(response, reason);
    expect(transfersFrom(wallet)).toHaveLength(0);
  });

  it("refuses an x402 payload made for another destination (from the echoed binding), and charges nothing", async () => {
    const wallet = newWallet();
    const body = order();
    const response = await buy(order(), { "payment-signature": await x402Signature(wallet, body) });
    expectRefusal(response, /another destination/);
    expect(transfersFrom(wallet)).toHaveLength(0);
  });

  it.each([
    [
      "MPP",
      (wallet: PrivateKeyAccount, body: unknown) => mppCredential(wallet, body).then((value) => ({ authorization: value })),
    ],
    [
      "x402",
      (wallet: PrivateKeyAccount, body: unknown) => x402Signature(wallet, body).then((value) => ({ "payment-signature": value })),
    ],
  ])("refuses a %s credential made at another price", async (_protocol, credentialFor) => {
    const wallet = newWallet();
    const body = order();
    const headers = await credentialFor(wallet, body);
    useSettings({ LINK_PRICE: "0.75" });
    try {
      const response = await buy(body, headers);
      expectRefusal(response, /price of 0\.5 USDC; one link costs 0\.75 USDC/);
      expect(response.body.price).toBe("0.75");
      expect(transfersFrom(wallet)).toHaveLength(0);
    } finally {
      useSettings({});
    }
  });

  it("refuses a credential whose signer is not the payer it names (forged from)", async () => {
    const wallet = newWallet();
    const victim = newWallet();
    const body = order();
    const genuine = decodedMpp(await mppCredential(wallet, body));
    const forged = Credential.serialize({
      ...genuine,
      payload: { ...(genuine.payload as object), from: victim.address },
      source: `did:pkh:${NETWORK}:${victim.address}`,
    });
    const response = await buy(body, { authorization: forged });
    expectRefusal(response, /signature mismatch/);

    const x402 = decodePaymentSignatureHeader(await x402Signature(wallet, body));
    const forgedX402 = {
      ...x402,
      payload: { ...x402.payload, authorization: { ...(x402.payload.authorization as object), from: victim.address } },
    };
    expectRefusal(
      await buy(body, { "payment-signature": Buffer.from(JSON.stringify(forgedX402)).toString("base64") }),
      /signature mismatch/,
    );
    expect(transfersFrom(victim)).toHaveLength(0);
    expect(transfersFrom(wallet)).toHaveLength(0);
  });

  it("refuses a challenge issued under another server secret", async () => {
    const wallet = newWallet();
    const body = order();
    useSettings({ MPP_SECRET_KEY: "another-servers-secret-key-32-bytes-long" });
    const credential = await mppCredential(wallet, body);
    useSettings({});
    expectRefusal(await buy(body, { authorization: credential }), /not issued by this server/);
    expect(transfersFrom(wallet)).toHaveLength(0);
  });

  it.each([
    [
      "MPP",
      (wallet: PrivateKeyAccount, body: unknown) => mppCredential(wallet, body).then((value) => ({ authorization: value })),
      /expired/i,
    ],
    [
      "x402",
      (wallet: PrivateKeyAccount, body: unknown) => x402Signature(wallet, body).then((value) => ({ "payment-signature": value })),
      /expired/i,
    ],
  ])("refuses a %s credential once its challenge has expired (five minutes)", async (_protocol, credentialFor, reason) => {
    const wallet = newWallet();
    const body = order();
    const headers = await credentialFor(wallet, body);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 5 * 60_000 + 1_000);
    expectRefusal(await buy(body, headers), reason);
    expect(transfersFrom(wallet)).toHaveLength(0);
  });

  it("refuses a payer without the balance, charges nothing, and takes the same credential once funded", async () => {
    const wallet = newWallet(100_000n);
    const body = order();
    const headers = { authorization: await mppCredential(wallet, body) };
    expectRefusal(await buy(body, headers), /insufficient|balance/i);
    expect(transfersFrom(wallet)).toHaveLength(0);
    expect(await db().link.count({ where: { destination: body.destination } })).toBe(0);

    ledger.fund(wallet.address, PRICE);
    const response = await buy(body, headers);
    expect(response.status).toBe(201);
    expect(transfersFrom(wallet)).toHaveLength(1);
  });

  it.each([
    ["another network", { network: "eip155:8453" as const }, /network eip155:8453; this service is paid on eip155:84532/],
    [
      "another asset",
      { asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" },
      /token 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913; this service is paid in USDC/,
    ],
  ])("refuses an x402 payment on %s", async (_label, change, reason) => {
    const wallet = newWallet();
    const body = order();
    const challenge = await challengeFor(body);
    const required = decodePaymentRequiredHeader(challenge.headers.get("payment-required")!);
    const tampered = new Response(null, {
      status: 402,
      headers: {
        "payment-required": encodePaymentRequiredHeader({ ...required, accepts: [{ ...required.accepts[0]!, ...change }] }),
      },
    });
    const signature = await x402Agent(wallet, { signAnything: true }).paymentSignature(tampered);
    expectRefusal(await buy(body, { "payment-signature": signature }), reason);
    expect(transfersFrom(wallet)).toHaveLength(0);
  });

  it.each([
    ["Authorization: Payment with no base64", { authorization: "Payment %%%not-base64%%%" }],
    ["Authorization: Payment with base64 that is not JSON", { authorization: "Payment bm90IGpzb24" }],
    [
      "Authorization: Payment with JSON that is no credential",
      { authorization: `Payment ${Buffer.from('{"hello":1}').toString("base64url")}` },
    ],
    ["PAYMENT-SIGNATURE with no base64", { "payment-signature": "***" }],
    [
      "PAYMENT-SIGNATURE with an x402 payload missing its authorization",
      { "payment-signature": Buffer.from('{"x402Version":2,"accepted":{}}').toString("base64") },
    ],
  ])("answers a malformed credential (%s) with 402 and a fresh challenge", async (_label, headers) => {
    expectRefusal(await buy(order(), headers), /malformed/);
  });
});

describe("the machine account", () => {
  it("gets an API key on its first purchase only; the key lists and repoints what the wallet bought", async () => {
    const wallet = newWallet();
    const firstBody = order({ slug: "first-of-two" });
    const bought = await buy(firstBody, { authorization: await mppCredential(wallet, firstBody) });
    expect(bought.status).toBe(201);
    const apiKey = bought.body.api_key as string;
    expect(apiKey).toMatch(/^plk_/);

    const secondBody = order();
    const second = await buy(secondBody, { "payment-signature": await x402Signature(wallet, secondBody) });
    expect(second.status).toBe(201);
    expect(second.body.api_key).toBeUndefined();

    const listed = await call("GET", "/api/links", { token: apiKey });
    expect(listed.status).toBe(200);
    expect(listed.body.links.map((link: { id: string }) => link.id).sort()).toEqual([bought.body.id, second.body.id].sort());
    const workspace = await call("GET", "/api/workspaces", { token: apiKey });
    expect(workspace.body.workspace).toMatchObject({ kind: "machine", credential: "api_key" });

    const repointed = await call("PATCH", `/api/links/${bought.body.id}`, {
      token: apiKey,
      body: { destination: "https://example.com/repointed" },
    });
    expect(repointed.status).toBe(200);
    expect(repointed.body).toMatchObject({
      id: bought.body.id,
      slug: "first-of-two",
      destination: "https://example.com/repointed",
    });

    const createdWithKey = await call("POST", "/api/links", { token: apiKey, body: order() });
    expect(createdWithKey.status).toBe(402);
    expect(createdWithKey.body).toMatchObject({ pay: ["mpp", "x402"], docs: "http://app.test.example/docs/payments" });
    expect(createdWithKey.body.error).toMatch(/without an Authorization header.*Existing links keep resolving\.$/);
  });
});

describe("a lost machine key", () => {
  it("is replaced by signing in with the paying wallet (EIP-4361); the old key stops working and the new one holds the links", async () => {
    const wallet = newWallet();
    const body = order();
    const payment = { authorization: await mppCredential(wallet, body) };
    const bought = await buy(body, payment);
    expect(bought.status).toBe(201);
    const lostKey = bought.body.api_key as string;

    const fields = (await call("GET", "/api/machine-accounts/nonce")).body;
    const message = createSiweMessage({
      address: wallet.address,
      domain: fields.domain,
      uri: fields.uri,
      chainId: fields.chain_id,
      version: "1",
      nonce: fields.nonce,
      issuedAt: new Date(),
    });
    const recovered = await call("POST", "/api/machine-accounts/key", {
      body: { message, signature: await wallet.signMessage({ message }) },
    });
    expect(recovered.status).toBe(200);
    const newKey = recovered.body.api_key as string;

    expect((await call("GET", "/api/links", { token: lostKey })).status).toBe(401);
    const listed = await call("GET", "/api/links", { token: newKey });
    expect(listed.body.links.map((link: { id: string }) => link.id)).toEqual([bought.body.id]);
    const resent = await buy(body, payment);
    expect(resent.status).toBe(201);
    expect(resent.body).toEqual({ ...bought.body, api_key: undefined });
  });
});

async function machineAccountOf(wallet: PrivateKeyAccount) {
  return db().workspace.findUniqueOrThrow({ where: { payerDid: `did:pkh:${NETWORK}:${getAddress(wallet.address)}` } });
}

describe("how agents find out", () => {
  it("/llms.txt points at the payments page and the OpenAPI document", async () => {
    const { GET } = await import("@/app/llms.txt/route");
    const response = GET();
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await response.text();
    expect(text).toContain(`${APP_ORIGIN}/docs/payments`);
    expect(text).toContain(`${APP_ORIGIN}/api/openapi.json`);
    expect(text).toMatch(/0\.50 USDC/);
  });

  it("the payments page walks through the purchase with a working example for each protocol, and key rotation and recovery", async () => {
    const { default: PaymentsPage } = await import("@/app/docs/payments/page");
    const html = renderToStaticMarkup(createElement(PaymentsPage));
    const keyManagement = [
      "/api/keys/rotate",
      `${APP_ORIGIN}/api/machine-accounts/nonce`,
      `${APP_ORIGIN}/api/machine-accounts/key`,
      "createSiweMessage",
      "EIP-4361",
    ];
    for (const expected of [
      "402 Payment Required",
      "Authorization: Payment",
      "PAYMENT-SIGNATURE",
      "mppx/client",
      "@x402/fetch",
      "api_key",
      `${APP_ORIGIN}/api/links`,
      ...keyManagement,
    ]) {
      expect(html).toContain(expected);
    }
  });
});
