import { findReplaySeal, forgetReplaySeals, mintReplayableApiKey } from "@/lib/auth/store";
import { clock } from "@/lib/clock";
import { transaction } from "@/lib/db/client";
import { commitLink, type LinkDraft } from "@/lib/links/commit";
import type { PaidLink } from "@/lib/links/schemas";
import { setTimeout as sleep } from "node:timers/promises";
import { bindingMismatch } from "./binding";
import { charge, FACILITATOR_TIMEOUT_MS, sha256 } from "./gateway";
import {
  ASK_AGAIN,
  challenge,
  paidLinkResponse,
  paymentRequired,
  receiptOf,
  refusalReason,
  stillSettling,
  toPaidLink,
} from "./responses";
import { openApiKey, sealApiKey } from "./seal";
import { paymentSettings } from "./settings";
import type { PaymentRow } from "./store";
import * as store from "./store";
import type { PaymentCredential, Purchase } from "./types";

const PENDING_POLL_MS = 100;
/** How long a resend waits for an earlier request with the same credential to finish before 409. */
const PENDING_WAIT_MS = 10_000;
/** A claim this old was abandoned (its process died while settling): a charge's facilitator calls (verify, settle) time out well before. */
const ABANDONED_AFTER_MS = 4 * FACILITATOR_TIMEOUT_MS;
/** How long an identical resend still receives a new machine account's api_key. */
export const API_KEY_REPLAY_WINDOW_MS = 60 * 60_000;
const FULFILMENT_TRANSACTION = { maxWait: 10_000, timeout: 15_000 };

const ALREADY_SPENT = "This payment is spent, or being spent, on another request; one payment buys one link.";

type Attempt = { purchase: Purchase; purchaseHash: string; credential: PaymentCredential; payerDid: string; waitUntil: number };

/**
 * Exactly one link per payment, whatever happens. The payments table, keyed by the payment and
 * by the credential's hash, is the single source of truth: a new payment is claimed (pending),
 * settled by mppx (settled), then the link, machine account and answer are written in one
 * transaction (fulfilled). A resend replays the stored answer; a concurrent duplicate waits for
 * it; a settled payment whose link was never written (a crash) is fulfilled by the next resend,
 * never charged again. Each of these belongs to the exact credential that claimed the payment:
 * the authorization's payer and nonce are public once it settles, so another credential naming
 * them proves nothing.
 */
export async function payForLink(purchase: Purchase, credential: PaymentCredential): Promise<Response> {
  const attempt: Attempt = {
    purchase,
    purchaseHash: sha256(JSON.stringify([purchase.destination, purchase.slug])),
    credential,
    payerDid: store.payerDidOf(credential.terms.network, credential.payer),
    waitUntil: Date.now() + PENDING_WAIT_MS,
  };
  for (;;) {
    const response = await nextStep(attempt);
    if (response) return response;
  }
}

/** One look at the payment's state and the step it allows; null means look again. */
async function nextStep(attempt: Attempt): Promise<Response | null> {
  const payment = await store.findPayment(attempt.credential);
  if (payment && payment.status !== "failed" && !heldBy(payment, attempt)) {
    return challenge(attempt.purchase, `${ALREADY_SPENT} ${ASK_AGAIN}`);
  }
  switch (payment?.status) {
    case undefined:
      return (await store.claimNewPayment(attempt.credential, attempt.purchaseHash, attempt.payerDid)) ? settle(attempt) : null;
    case "fulfilled":
      return replay(payment);
    case "settled":
      return fulfil(payment, attempt.purchase);
    case "failed":
    case "pending":
      if (
        await store.reclaimPayment(
          attempt.credential,
          attempt.purchaseHash,
          attempt.payerDid,
          new Date(clock().now() - ABANDONED_AFTER_MS),
        )
      ) {
        return settle(attempt);
      }
      if (payment.status === "pending") await waitForEarlierAttempt(attempt.waitUntil);
      return null;
  }
}

/** The same credential bytes for the same purchase: the only request this payment answers. */
function heldBy(payment: PaymentRow, attempt: Attempt): boolean {
  return payment.credentialHash === attempt.credential.credentialHash && payment.purchase === attempt.purchaseHash;
}

/**
 * Checks the terms, then lets mppx verify and settle; a refusal leaves the payment failed, free to
 * be tried again. Null when the claim was lost meanwhile (the payment moved on without this
 * attempt): the caller looks again.
 */
async function settle(attempt: Attempt): Promise<Response | null> {
  const { credential, purchase } = attempt;
  const mismatch = bindingMismatch(credential, purchase, paymentSettings());
  if (mismatch) {
    return (await store.markFailed(credential, mismatch)) ? challenge(purchase, mismatch) : null;
  }
  const outcome = await charge(purchase, credential.headers).catch(async (error: unknown) => {
    await store.markFailed(credential, "internal error");
    throw error;
  });
  if (outcome.status === 402) {
    const reason = await refusalReason(outcome.challenge);
    if (!(await store.markFailed(credential, reason))) return null;
    return paymentRequired(outcome.challenge, `The payment was refused: ${reason} ${ASK_AGAIN}`, paymentSettings());
  }
  const receipt = receiptOf(outcome.withReceipt(new Response(null)));
  const settled = await store.markSettled(credential, receipt.reference, receipt.headers);
  return settled && fulfil(settled, purchase);
}

/** Writes the link for a settled payment; null when a concurrent request wrote it first. */
async function fulfil(payment: PaymentRow, purchase: Purchase): Promise<Response | null> {
  const { secretKey } = paymentSettings();
  const written = await transaction(async (tx) => {
    if (!(await store.takeSettledPayment(tx, payment))) return null;
    const account = await store.ensureMachineAccount(tx, payment.payerDid);
    const key = account.created
      ? await mintReplayableApiKey(account.workspaceId, tx, (apiKey) => sealApiKey(apiKey, secretKey))
      : null;
    const { link, slugFellBack } = await commitLink(paidLinkDraft(account.workspaceId, payment.payerDid, purchase), {
      client: tx,
    });
    const body = toPaidLink(link, payment.reference!, slugFellBack ? slugTakenNotice(purchase.slug!, link.slug) : null);
    await store.recordFulfilment(tx, payment.paymentKey, { linkId: link.id, response: body, apiKeyId: key?.keyId ?? null });
    return { body, apiKey: key?.apiKey ?? null };
  }, FULFILMENT_TRANSACTION);
  if (!written) return null;
  void forgetReplaySeals(replayWindowStart()).catch(() => undefined);
  return paidLinkResponse(written.body, written.apiKey, payment.receiptHeaders ?? {});
}

/**
 * The paid link on the requested slug; if that slug was taken between the check before payment
 * and now, the payment still buys a link, on an allocated slug, and the answer says so. Each
 * payment buys a new link, never the wallet's earlier one to the same destination.
 */
function paidLinkDraft(workspaceId: string, payerDid: string, purchase: Purchase): LinkDraft {
  return {
    workspaceId,
    host: null,
    domainId: null,
    destination: purchase.destination,
    by: { kind: "machine_payment", payerDid },
    slug: purchase.slug,
    title: null,
    passwordHash: null,
    scanLimit: null,
    tagNames: [],
    importedFrom: null,
    slugPolicy: "fall_back_to_allocated",
    reuse: false,
  };
}

function slugTakenNotice(requested: string, allocated: string): string {
  return (
    `The slug "${requested}" was taken by someone else while your payment settled, so your link got ` +
    `the allocated slug "${allocated}"; it points where you asked.`
  );
}

/**
 * The stored answer again, with the same receipt; the api_key too while the replay window lasts
 * and the key is live and has never been used (its first use erases the sealed copy).
 */
async function replay(payment: PaymentRow): Promise<Response> {
  return paidLinkResponse(payment.response as PaidLink, await replayableApiKey(payment), payment.receiptHeaders ?? {});
}

async function replayableApiKey(payment: PaymentRow): Promise<string | null> {
  const sealed = payment.apiKeyId && (await findReplaySeal(payment.apiKeyId, replayWindowStart()));
  return sealed ? openApiKey(sealed, paymentSettings().secretKey) : null;
}

function replayWindowStart(): Date {
  return new Date(clock().now() - API_KEY_REPLAY_WINDOW_MS);
}

async function waitForEarlierAttempt(waitUntil: number): Promise<void> {
  if (Date.now() > waitUntil) throw stillSettling();
  await sleep(PENDING_POLL_MS);
}
