import type { Interval, PlanId } from "./plans";

/** Stripe's subscription statuses (incomplete_expired is stored as canceled), plus none: never subscribed. */
export const SUBSCRIPTION_STATUSES = [
  "none",
  "incomplete",
  "trialing",
  "active",
  "past_due",
  "unpaid",
  "paused",
  "canceled",
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export type ProviderName = "stripe" | "local";

/** A subscription as its provider described it at one moment. */
export type SubscriptionSnapshot = {
  subscriptionId: string;
  customerId: string;
  status: Exclude<SubscriptionStatus, "none">;
  plan: PlanId;
  interval: Interval;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  cancelAtPeriodEnd: boolean;
};

/** What an event reports: the whole subscription, or the outcome of an invoice of the subscription on record. */
export type SubscriptionChange =
  { kind: "snapshot"; snapshot: SubscriptionSnapshot } | { kind: "invoice"; subscriptionId: string; paid: boolean };

/** One provider event about one workspace's subscription; both providers' changes arrive as these. */
export type BillingEvent = {
  provider: ProviderName;
  id: string;
  type: string;
  /** When the provider says the change happened (Stripe's `created`); orders out-of-order deliveries. */
  occurredAt: Date;
  workspaceId: string;
  change: SubscriptionChange;
};

/** The subscription state stored for a workspace. */
export type AccountState = {
  provider: ProviderName;
  customerId: string | null;
  subscriptionId: string | null;
  status: SubscriptionStatus;
  plan: PlanId | null;
  interval: Interval | null;
  currentPeriodStart: Date | null;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  pastDueSince: Date | null;
  stateAsOf: Date | null;
};
