import { clock } from "@/lib/clock";
import { config } from "@/lib/config";
import { configuredPaymentSettings } from "@/lib/config/payments";
import { type DbClient, transaction } from "@/lib/db/client";
import type { DomainError } from "@/lib/http/errors";
import { machinePaymentsOff, paymentRequiredError } from "@/lib/http/payment-required";
import type { Cycle } from "./cycles";
import { CURRENCY, DEFAULT_INTERVAL, DEFAULT_PLAN, PLANS, UPGRADE_PLAN, describePrice, offeredChoices, priceOf } from "./plans";
import { type Standing, standingOf } from "./state";
import * as store from "./store";
import type { AccountState } from "./types";

/** Long enough for a burst of creates on one capped workspace to queue on its allowance row. */
const ALLOWANCE_TRANSACTION = { maxWait: 10_000, timeout: 15_000 };

/** A create that passed the subscription check; `limit` is the capped plan's allowance to spend on commit. */
export type CreateEntitlement = { workspaceId: string; limit: { cap: number; cycle: Cycle } | null };

export function standingNow(account: AccountState | null): Standing {
  return standingOf(account, new Date(clock().now()), config().BILLING_PAST_DUE_GRACE_DAYS);
}

/**
 * May this workspace create a link with a bearer credential? An active subscription is needed
 * (custom domains included); a machine account buys each link instead. Refusals are 402 naming
 * the way forward. A capped plan's allowance is checked when the link is committed.
 */
export async function requireCreateEntitlement(workspaceId: string): Promise<CreateEntitlement> {
  const subject = await store.findBillingSubject(workspaceId);
  if (subject.kind === "machine") throw machineAccountMustPay();
  const standing = standingNow(subject.account);
  if (!standing.active) throw subscriptionInactive(standing, "create");
  const limit = standing.cap !== null && standing.cycle ? { cap: standing.cap, cycle: standing.cycle } : null;
  return { workspaceId, limit };
}

/** Editing needs an active subscription; a machine account repoints the links it bought without one. */
export async function requireEditEntitlement(workspaceId: string): Promise<void> {
  const subject = await store.findBillingSubject(workspaceId);
  if (subject.kind === "machine") return;
  const standing = standingNow(subject.account);
  if (!standing.active) throw subscriptionInactive(standing, "edit");
}

/**
 * Inviting people needs an active subscription: both plans include teammates, and a workspace
 * nobody pays for must not send e-mail from our address to anyone its owner names.
 */
export async function requireInviteEntitlement(workspaceId: string): Promise<void> {
  const standing = standingNow((await store.findBillingSubject(workspaceId)).account);
  if (!standing.active) throw subscriptionInactive(standing, "invite");
}

/** Adding a custom domain needs an active subscription (both plans include domains); a machine account has none. */
export async function requireDomainEntitlement(workspaceId: string): Promise<void> {
  const subject = await store.findBillingSubject(workspaceId);
  const standing = subject.kind === "machine" ? null : standingNow(subject.account);
  if (standing?.active) return;
  const reason =
    subject.kind === "machine"
      ? "A machine account has no subscription, and custom domains need one; sign in and use a workspace with a subscription."
      : `Custom domains need an active subscription. Subscribe with POST /api/billing/checkout (${planSummary()}).`;
  throw subscribeFirst(reason);
}

/**
 * Runs the commit of a create. On a capped plan it takes one unit of the cycle's allowance in
 * the same transaction: a commit that returns the workspace's existing link gives the unit back
 * (and is answered even when the allowance is spent), one that fails rolls it back, and a new
 * link without a unit is rolled back and refused with 402.
 */
export async function spendAllowance<Result extends { created: boolean }>(
  entitlement: CreateEntitlement,
  commit: (client: DbClient) => Promise<Result>,
): Promise<Result> {
  const { workspaceId, limit } = entitlement;
  // A transaction even without a cap: a commit writes the link and its tags together.
  if (!limit) return transaction((tx) => commit(tx), ALLOWANCE_TRANSACTION);
  return transaction(async (tx) => {
    const reserved = await store.reserveUnit(tx, workspaceId, limit.cycle.start, limit.cap);
    const result = await commit(tx);
    if (result.created && !reserved) throw allowanceSpent(limit);
    if (!result.created && reserved) await store.releaseUnit(tx, workspaceId, limit.cycle.start);
    return result;
  }, ALLOWANCE_TRANSACTION);
}

const DOING = { create: "create links", edit: "edit links", invite: "invite people" } as const;

function subscriptionInactive(standing: Standing, action: keyof typeof DOING): DomainError {
  const doing = DOING[action];
  const reason =
    standing.status === "past_due"
      ? `This workspace's subscription payment is overdue and its grace period has ended, so it cannot ` +
        `${doing}. Update the payment method in the billing portal (POST /api/billing/portal).`
      : `This workspace has no active subscription, so it cannot ${doing}. Subscribe with POST /api/billing/checkout (${planSummary()}).`;
  return subscribeFirst(reason);
}

/** A 402 whose way forward is a subscription: the default plan's price and the checkout's docs. */
function subscribeFirst(reason: string): DomainError {
  return paymentRequiredError({
    reason,
    price: priceOf({ plan: DEFAULT_PLAN, interval: DEFAULT_INTERVAL }),
    currency: CURRENCY,
    pay: ["subscribe"],
    docs: docsUrl("startCheckout"),
  });
}

function allowanceSpent(limit: { cap: number; cycle: Cycle }): DomainError {
  const renews = limit.cycle.end.toISOString().slice(0, 10);
  const upgrade = { plan: UPGRADE_PLAN, interval: DEFAULT_INTERVAL } as const;
  return paymentRequiredError({
    reason:
      `This workspace has created all ${limit.cap} new links its plan allows this billing cycle; the ` +
      `allowance renews on ${renews}. Upgrade to ${PLANS[UPGRADE_PLAN].name} ` +
      `(${describePrice(upgrade)}, no cap) in the billing portal (POST /api/billing/portal) to create ` +
      `more now.`,
    price: priceOf(upgrade),
    currency: CURRENCY,
    pay: ["upgrade"],
    docs: docsUrl("openBillingPortal"),
  });
}

function machineAccountMustPay(): DomainError {
  const payments = configuredPaymentSettings();
  if (!payments) return machinePaymentsOff();
  return paymentRequiredError({
    reason:
      "A machine account buys each link and has no subscription: send POST /api/links again without an " +
      "Authorization header to receive a payment challenge (MPP or x402). Its API key still repoints " +
      "the links it bought.",
    price: payments.price,
    currency: payments.assetName,
    pay: ["mpp", "x402"],
    docs: payments.docsUrl,
  });
}

function planSummary(): string {
  return offeredChoices()
    .map((choice) => `${PLANS[choice.plan].name} ${describePrice(choice)}`)
    .join(", ");
}

/** The operation's section of the API reference. */
function docsUrl(operationId: string): string {
  return `${config().BASE_URL}/docs#${operationId}`;
}
