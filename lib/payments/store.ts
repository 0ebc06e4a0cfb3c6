import { clock } from "@/lib/clock";
import { db, type DbClient } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/client";
import { newId } from "@/lib/db/random";
import { getAddress } from "viem";
import type { PaymentCredential } from "./types";

export type PaymentRow = {
  paymentKey: string;
  /** The credential that claimed this payment: only its exact bytes may wait for, fulfil or replay it. */
  credentialHash: string;
  purchase: string;
  status: "pending" | "settled" | "fulfilled" | "failed";
  claimedAt: Date;
  payerDid: string;
  reference: string | null;
  receiptHeaders: Record<string, string> | null;
  response: Record<string, unknown> | null;
  /** The key this payment minted for a new machine account. */
  apiKeyId: string | null;
  fulfilledAt: Date | null;
};

/** Who holds a payment: the authorization it spends and the exact credential that claimed it. */
export type Claim = Pick<PaymentCredential, "paymentKey" | "credentialHash">;

const PAYMENT_COLUMNS = {
  paymentKey: true,
  credentialHash: true,
  purchase: true,
  status: true,
  claimedAt: true,
  payerDid: true,
  reference: true,
  receiptHeaders: true,
  response: true,
  apiKeyId: true,
  fulfilledAt: true,
} as const;

/** The payment this credential belongs to: the same authorization, or the same bytes. */
export async function findPayment(credential: PaymentCredential): Promise<PaymentRow | null> {
  const row = await db().payment.findFirst({
    where: { OR: [{ paymentKey: credential.paymentKey }, { credentialHash: credential.credentialHash }] },
    select: PAYMENT_COLUMNS,
  });
  return row as PaymentRow | null;
}

/** True when these exact credential bytes hold a payment that has not failed: a resend. */
export async function isClaimed(credential: PaymentCredential): Promise<boolean> {
  const row = await db().payment.findFirst({
    where: { credentialHash: credential.credentialHash, status: { not: "failed" } },
    select: { paymentKey: true },
  });
  return row !== null;
}

/** Claims a payment nobody has seen; false when another request claimed it first (the primary key decides). */
export async function claimNewPayment(credential: PaymentCredential, purchase: string, payerDid: string): Promise<boolean> {
  const { count } = await db().payment.createMany({
    data: [{ ...claimFields(credential, purchase, payerDid), paymentKey: credential.paymentKey, status: "pending" }],
    skipDuplicates: true,
  });
  return count === 1;
}

/**
 * Claims again a payment whose attempt failed, or whose attempt by these same credential bytes
 * was abandoned (pending since before `staleBefore`): nothing settled then, so this attempt may
 * try. One claimer wins.
 */
export async function reclaimPayment(
  credential: PaymentCredential,
  purchase: string,
  payerDid: string,
  staleBefore: Date,
): Promise<boolean> {
  const { count } = await db().payment.updateMany({
    where: {
      paymentKey: credential.paymentKey,
      OR: [
        { status: "failed" },
        { status: "pending", credentialHash: credential.credentialHash, claimedAt: { lt: staleBefore } },
      ],
    },
    data: { ...claimFields(credential, purchase, payerDid), status: "pending", failure: null },
  });
  return count === 1;
}

/** Ends this claim's attempt as failed; false (and nothing written) when the payment is no longer pending under this claim. */
export async function markFailed(claim: Claim, failure: string): Promise<boolean> {
  const { count } = await db().payment.updateMany({ where: pendingUnder(claim), data: { status: "failed", failure } });
  return count === 1;
}

/** Records this claim's settlement; null (and nothing written) when the payment is no longer pending under this claim. */
export async function markSettled(
  claim: Claim,
  reference: string,
  receiptHeaders: Record<string, string>,
): Promise<PaymentRow | null> {
  const [row] = await db().payment.updateManyAndReturn({
    where: pendingUnder(claim),
    data: { status: "settled", reference, receiptHeaders },
    select: PAYMENT_COLUMNS,
  });
  return (row as PaymentRow | undefined) ?? null;
}

/**
 * Moves a settled payment to fulfilled; false when another request already did (run inside the
 * fulfilment's transaction, this row lock serialises them).
 */
export async function takeSettledPayment(tx: DbClient, claim: Claim): Promise<boolean> {
  const { count } = await tx.payment.updateMany({
    where: { paymentKey: claim.paymentKey, credentialHash: claim.credentialHash, status: "settled" },
    data: { status: "fulfilled", fulfilledAt: new Date(clock().now()) },
  });
  return count === 1;
}

export async function recordFulfilment(
  tx: DbClient,
  paymentKey: string,
  fulfilment: { linkId: string; response: Record<string, unknown>; apiKeyId: string | null },
): Promise<void> {
  await tx.payment.update({
    where: { paymentKey },
    data: { ...fulfilment, response: fulfilment.response as Prisma.InputJsonObject },
  });
}

/** How a machine account names its wallet (workspaces.payer_did): did:pkh:eip155:<chain>:<checksummed address>. */
export function payerDidOf(network: string, address: string): string {
  return `did:pkh:${network}:${getAddress(address)}`;
}

/** The machine account this wallet's payments made, or null. */
export async function findMachineAccount(payerDid: string): Promise<{ workspaceId: string } | null> {
  const workspace = await db().workspace.findFirst({ where: { payerDid, kind: "machine" }, select: { id: true } });
  return workspace && { workspaceId: workspace.id };
}

/**
 * The machine account of this wallet, created on its first purchase (created: true). ON
 * CONFLICT keeps concurrent first purchases by one wallet to one account without aborting the
 * transaction this runs in.
 */
export async function ensureMachineAccount(tx: DbClient, payerDid: string): Promise<{ workspaceId: string; created: boolean }> {
  const workspaceId = newId("ws");
  const inserted = await tx.$executeRaw`
    INSERT INTO workspaces (id, name, kind, payer_did)
    VALUES (${workspaceId}, ${`Machine account ${payerDid}`}, 'machine', ${payerDid})
    ON CONFLICT (payer_did) DO NOTHING`;
  if (inserted === 1) return { workspaceId, created: true };
  const existing = await tx.workspace.findUniqueOrThrow({ where: { payerDid }, select: { id: true } });
  return { workspaceId: existing.id, created: false };
}

function pendingUnder(claim: Claim) {
  return { paymentKey: claim.paymentKey, credentialHash: claim.credentialHash, status: "pending" as const };
}

function claimFields(credential: PaymentCredential, purchase: string, payerDid: string) {
  return {
    credentialHash: credential.credentialHash,
    protocol: credential.protocol,
    payerDid,
    purchase,
    claimedAt: new Date(clock().now()),
  };
}

/** Keeps a nonce until `expiresAt`; it can be consumed once. */
export async function storeNonce(nonce: string, expiresAt: Date): Promise<void> {
  await db().siweNonce.create({ data: { nonce, expiresAt } });
}

/**
 * Consumes the nonce and returns when it expired or expires; null when it was never issued or is
 * already consumed. One DELETE … RETURNING decides: of two requests with one nonce, one gets it.
 */
export async function consumeNonce(nonce: string): Promise<Date | null> {
  const [row] = await db().$queryRaw<{ expires_at: Date }[]>`DELETE FROM siwe_nonces WHERE nonce = ${nonce} RETURNING expires_at`;
  return row?.expires_at ?? null;
}

export async function forgetExpiredNonces(now: Date): Promise<void> {
  await db().siweNonce.deleteMany({ where: { expiresAt: { lt: now } } });
}
