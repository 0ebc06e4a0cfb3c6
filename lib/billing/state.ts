import { DAY_MS } from "@/lib/clock";
import { type Cycle, cycleContaining } from "./cycles";
import { type Interval, PLANS, type PlanId } from "./plans";
import type { AccountState, BillingEvent, SubscriptionStatus } from "./types";

/** Statuses that may still grant access: a late event about another subscription must not replace one of these with an ended one. */
export const LIVE_STATUSES: ReadonlySet<SubscriptionStatus> = new Set(["trialing", "active", "past_due"]);

/**
 * Breaks ties between events of the same second (Stripe's `created` has one-second resolution):
 * later in a subscription's life wins, so "created: incomplete" never overwrites "updated: active"
 * and nothing overwrites "deleted".
 */
const STATUS_RANK: Record<SubscriptionStatus, number> = {
  none: 0,
  incomplete: 1,
  trialing: 2,
  active: 3,
  past_due: 4,
  unpaid: 5,
  paused: 5,
  canceled: 6,
};

/**
 * The state after `event`, or null when the event changes nothing: it is older than the state
 * on record, or it reports an invoice of a subscription this workspace no longer has or that ended.
 */
export function nextState(current: AccountState | null, event: BillingEvent): AccountState | null {
  const proposed = proposedState(current, event);
  if (!proposed || !supersedes(proposed, current)) return null;
  return { ...proposed, pastDueSince: pastDueSince(current, proposed) };
}

function proposedState(current: AccountState | null, event: BillingEvent): AccountState | null {
  const { change } = event;
  if (change.kind === "snapshot") {
    return { ...change.snapshot, provider: event.provider, pastDueSince: null, stateAsOf: event.occurredAt };
  }
  if (!current || current.subscriptionId !== change.subscriptionId) return null;
  // An invoice moves a live subscription between active and past_due; it never revives one that
  // ended (a final proration invoice is paid after cancellation). Only a snapshot leaves those.
  if (!LIVE_STATUSES.has(current.status)) return null;
  return { ...current, status: change.paid ? "active" : "past_due", stateAsOf: event.occurredAt };
}

/**
 * Newer wins, by when the provider produced the state, then by period start (a renewal, or the
 * later of two subscriptions), then by status rank; an equal state applies again harmlessly.
 */
function supersedes(next: AccountState, current: AccountState | null): boolean {
  if (!current?.subscriptionId || !current.stateAsOf) return true;
  const sameSubscription = next.subscriptionId === current.subscriptionId;
  if (!sameSubscription && LIVE_STATUSES.has(current.status) && !LIVE_STATUSES.has(next.status)) return false;
  if (sameSubscription && compareTimes(next.currentPeriodStart, current.currentPeriodStart) < 0) return false;
  const order =
    compareTimes(next.stateAsOf, current.stateAsOf) ||
    compareTimes(next.currentPeriodStart, current.currentPeriodStart) ||
    STATUS_RANK[next.status] - STATUS_RANK[current.status];
  return order >= 0;
}

/** Grace is counted from the first report of past_due, not from each repeat of it. */
function pastDueSince(current: AccountState | null, next: AccountState): Date | null {
  if (next.status !== "past_due") return null;
  const alreadyPastDue = current?.status === "past_due" && current.subscriptionId === next.subscriptionId;
  return alreadyPastDue ? current.pastDueSince : next.stateAsOf;
}

function compareTimes(a: Date | null, b: Date | null): number {
  return (a?.getTime() ?? 0) - (b?.getTime() ?? 0);
}

/** What a workspace's subscription allows at a moment. */
export type Standing = {
  status: SubscriptionStatus;
  plan: PlanId | null;
  interval: Interval | null;
  /** Create and edit are allowed (trialing, active, or past_due within the grace period). */
  active: boolean;
  cancelAtPeriodEnd: boolean;
  /** For past_due: when creating and editing stop unless the payment succeeds. */
  graceEndsAt: Date | null;
  /** The billing cycle that contains now; null without a live subscription. */
  cycle: Cycle | null;
  /** New links per cycle; null when the plan has no cap (or there is no plan). */
  cap: number | null;
};

export function standingOf(account: AccountState | null, now: Date, graceDays: number): Standing {
  const status = account?.status ?? "none";
  const plan = account?.plan ?? null;
  const interval = account?.interval ?? null;
  const graceEndsAt =
    status === "past_due" && account?.pastDueSince ? new Date(account.pastDueSince.getTime() + graceDays * DAY_MS) : null;
  const active = status === "active" || status === "trialing" || (graceEndsAt !== null && now < graceEndsAt);
  const anchor = LIVE_STATUSES.has(status) ? (account?.currentPeriodStart ?? null) : null;
  return {
    status,
    plan,
    interval,
    active,
    cancelAtPeriodEnd: account?.cancelAtPeriodEnd ?? false,
    graceEndsAt,
    cycle: anchor && interval ? cycleContaining(anchor, interval, now) : null,
    cap: plan ? PLANS[plan].cap : null,
  };
}
