import { clock } from "@/lib/clock";
import { config } from "@/lib/config";
import { newId } from "@/lib/db/random";
import { DomainError, notFound } from "@/lib/http/errors";
import { intervalEnd } from "./cycles";
import { type PlanChoice, isOffered } from "./plans";
import type { BillingProvider } from "./provider-contract";
import { LIVE_STATUSES } from "./state";
import type { LocalSession } from "./store";
import * as store from "./store";
import { applyBillingEvent } from "./subscriptions";
import type { AccountState, SubscriptionSnapshot } from "./types";

const CHECKOUT_LIFETIME_MS = 24 * 60 * 60 * 1000;
const PORTAL_LIFETIME_MS = 60 * 60 * 1000;

/**
 * A stand-in for Stripe that takes no payment: its checkout and portal are pages of this app,
 * and their forms change the subscription through the same applyBillingEvent as Stripe's webhook.
 */
export const localProvider: BillingProvider = {
  name: "local",

  async checkoutUrl(subject, choice) {
    return appUrl(await startLocalCheckout(subject.id, choice));
  },

  async portalUrl(subject) {
    const session = await store.createLocalSession({
      kind: "portal",
      workspaceId: subject.id,
      plan: null,
      interval: null,
      expiresAt: expiresIn(PORTAL_LIFETIME_MS),
    });
    return appUrl(localPortalPath(session.id));
  },
};

export function localCheckoutPath(sessionId: string): string {
  return `/billing/local/checkout/${sessionId}`;
}

export function localPortalPath(sessionId: string): string {
  return `/billing/local/portal/${sessionId}`;
}

export function isExpired(session: LocalSession): boolean {
  return !session.completedAt && session.expiresAt.getTime() <= clock().now();
}

/**
 * The purchase: activates the subscription as Stripe's checkout.session.completed would. The
 * event id comes from the checkout's id, so submitting the form twice buys once.
 */
export async function completeLocalCheckout(sessionId: string): Promise<void> {
  const session = await usableSession(sessionId, "checkout");
  if (session.completedAt) return;
  const now = new Date(clock().now());
  const choice = { plan: session.plan!, interval: session.interval! };
  const snapshot: SubscriptionSnapshot = {
    subscriptionId: newId("sub_local"),
    customerId: localCustomerId(session.workspaceId),
    status: "active",
    ...choice,
    currentPeriodStart: now,
    currentPeriodEnd: intervalEnd(now, choice.interval),
    cancelAtPeriodEnd: false,
  };
  await applyLocalChange(`evt_${session.id}`, "checkout.session.completed", session.workspaceId, snapshot);
  await store.markLocalSessionCompleted(session.id);
}

/** Cancels at once, as Stripe's customer.subscription.deleted does. */
export async function cancelLocalSubscription(portalSessionId: string): Promise<void> {
  const session = await usableSession(portalSessionId, "portal");
  const { account } = await store.findBillingSubject(session.workspaceId);
  if (!isLive(account)) throw new DomainError("conflict", "This workspace has no live subscription to cancel.");
  await applyLocalChange(newId("evt_local"), "customer.subscription.deleted", session.workspaceId, {
    ...localSnapshot(account),
    status: "canceled",
  });
}

/**
 * Moves a live subscription to another plan, starting a new cycle now; without one, starts a
 * checkout for the chosen plan instead. Returns the path of the page to show next.
 */
export async function changeLocalPlan(portalSessionId: string, choice: PlanChoice): Promise<string> {
  if (!isOffered(choice))
    throw new DomainError("invalid_request", `The ${choice.plan} plan is not sold by the ${choice.interval}.`);
  const session = await usableSession(portalSessionId, "portal");
  const { account } = await store.findBillingSubject(session.workspaceId);
  if (!isLive(account)) return startLocalCheckout(session.workspaceId, choice);
  const now = new Date(clock().now());
  const changed = {
    ...localSnapshot(account),
    ...choice,
    status: "active" as const,
    currentPeriodStart: now,
    currentPeriodEnd: intervalEnd(now, choice.interval),
  };
  await applyLocalChange(newId("evt_local"), "customer.subscription.updated", session.workspaceId, changed);
  return localPortalPath(session.id);
}

async function startLocalCheckout(workspaceId: string, choice: PlanChoice): Promise<string> {
  const session = await store.createLocalSession({
    kind: "checkout",
    workspaceId,
    ...choice,
    expiresAt: expiresIn(CHECKOUT_LIFETIME_MS),
  });
  return localCheckoutPath(session.id);
}

/** A page's id is in its URL; anyone holding the URL can use it, as with Stripe's pages. */
async function usableSession(sessionId: string, kind: LocalSession["kind"]): Promise<LocalSession> {
  const session = await store.findLocalSession(sessionId, kind);
  if (!session) throw notFound(`No local billing ${kind} page has this address.`);
  if (isExpired(session)) throw new DomainError("gone", `This local billing ${kind} page has expired; start again from the API.`);
  return session;
}

/** The live subscription as a snapshot to change; one billed by Stripe is managed in Stripe's portal, not here. */
function localSnapshot(account: LiveAccount): SubscriptionSnapshot {
  if (account.provider !== "local")
    throw new DomainError("conflict", "This workspace's subscription is billed by Stripe; manage it in Stripe's billing portal.");
  return {
    subscriptionId: account.subscriptionId,
    customerId: account.customerId,
    status: account.status,
    plan: account.plan,
    interval: account.interval,
    currentPeriodStart: account.currentPeriodStart,
    currentPeriodEnd: account.currentPeriodEnd,
    cancelAtPeriodEnd: account.cancelAtPeriodEnd,
  };
}

type LiveAccount = AccountState & {
  customerId: string;
  subscriptionId: string;
  status: "trialing" | "active" | "past_due";
  plan: NonNullable<AccountState["plan"]>;
  interval: NonNullable<AccountState["interval"]>;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
};

function isLive(account: AccountState | null): account is LiveAccount {
  return (
    account !== null &&
    LIVE_STATUSES.has(account.status) &&
    account.customerId !== null &&
    account.subscriptionId !== null &&
    account.plan !== null &&
    account.interval !== null &&
    account.currentPeriodStart !== null &&
    account.currentPeriodEnd !== null
  );
}

async function applyLocalChange(
  eventId: string,
  type: string,
  workspaceId: string,
  snapshot: SubscriptionSnapshot,
): Promise<void> {
  await applyBillingEvent({
    provider: "local",
    id: eventId,
    type,
    occurredAt: new Date(clock().now()),
    workspaceId,
    change: { kind: "snapshot", snapshot },
  });
}

function localCustomerId(workspaceId: string): string {
  return `cus_local_${workspaceId}`;
}

function expiresIn(milliseconds: number): Date {
  return new Date(clock().now() + milliseconds);
}

function appUrl(path: string): string {
  return `${config().BASE_URL}${path}`;
}
