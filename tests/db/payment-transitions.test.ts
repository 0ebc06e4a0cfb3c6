import * as store from "@/lib/payments/store";
import type { PaymentCredential } from "@/lib/payments/types";
import { randomBytes } from "node:crypto";
import { getAddress } from "viem";
import { describe, expect, it } from "vitest";

const NETWORK = "eip155:84532";
const PURCHASE = "purchase-hash";
const payer = getAddress(`0x${randomBytes(20).toString("hex")}`);
const PAYER_DID = `did:pkh:${NETWORK}:${payer}`;

/** A credential for the payment `nonce`; `bytes` stands for the header value it was read from. */
function credential(nonce: string, bytes: string): PaymentCredential {
  return {
    protocol: "x402",
    headers: new Headers(),
    credentialHash: `hash-of-${bytes}-${nonce}`,
    paymentKey: `${NETWORK}:${payer}:${nonce}`,
    payer,
    terms: { network: NETWORK, asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", recipient: payer, amount: "500000" },
    binding: null,
  };
}

/** As good as abandoned: any pending claim is older than this. */
const inAMinute = () => new Date(Date.now() + 60_000);

describe("payment state transitions", () => {
  it("settle and fail only a payment pending under the claim that makes them", async () => {
    const mine = credential("0x01", "mine");
    const forged = credential("0x01", "forged");
    expect(await store.claimNewPayment(mine, PURCHASE, PAYER_DID)).toBe(true);

    expect(await store.markSettled(forged, "0xforged", {})).toBeNull();
    expect(await store.markFailed(forged, "refused")).toBe(false);
    expect(await store.findPayment(mine)).toMatchObject({ status: "pending", credentialHash: mine.credentialHash });

    expect(await store.markSettled(mine, "0xreference", { "payment-receipt": "receipt" })).toMatchObject({
      status: "settled",
      reference: "0xreference",
    });
    expect(await store.markFailed(mine, "a late failure")).toBe(false);
    expect(await store.markSettled(mine, "0xagain", {})).toBeNull();
    expect(await store.reclaimPayment(mine, PURCHASE, PAYER_DID, inAMinute())).toBe(false);
    expect(await store.findPayment(mine)).toMatchObject({ status: "settled", reference: "0xreference" });
  });

  it("let only the same credential bytes reclaim an abandoned claim; a failed one is open to any", async () => {
    const mine = credential("0x02", "mine");
    const other = credential("0x02", "other");
    expect(await store.claimNewPayment(mine, PURCHASE, PAYER_DID)).toBe(true);
    expect(await store.reclaimPayment(other, PURCHASE, PAYER_DID, inAMinute())).toBe(false);
    expect(await store.reclaimPayment(mine, PURCHASE, PAYER_DID, inAMinute())).toBe(true);

    expect(await store.markFailed(mine, "insufficient balance")).toBe(true);
    expect(await store.reclaimPayment(other, PURCHASE, PAYER_DID, new Date(0))).toBe(true);
    expect(await store.findPayment(other)).toMatchObject({ status: "pending", credentialHash: other.credentialHash });
  });
});
