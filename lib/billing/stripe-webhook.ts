import Stripe from "stripe";
import { config } from "@/lib/config";
import { DomainError } from "@/lib/http/errors";
import { choiceForStripePrice } from "./plans";
import * as store from "./store";
import { callStripe, WORKSPACE_METADATA_KEY } from "./stripe-provider";
import { type ApplyOutcome, applyBillingEvent } from "./subscriptions";
import type { BillingEvent, SubscriptionChange, SubscriptionSnapshot, SubscriptionStatus } from "./types";

export type WebhookOutcome = ApplyOutcome | "ignored";

/**
 * Verifies a Stripe webhook delivery against STRIPE_WEBHOOK_SECRET (400 when forged, altered
 * or too old) and applies what it says about a subscription. Events that concern no
 * subscription of this service are acknowledged and ignored, so Stripe stops resending them.
 */
export async function handleStripeWebhook(payload: string, signature: string | null): Promise<WebhookOutcome> {
  const { BILLING_PROVIDER, STRIPE_WEBHOOK_SECRET } = config();
  if (BILLING_PROVIDER !== "stripe" || !STRIPE_WEBHOOK_SECRET) {
    throw new DomainError("not_configured", "This deployment does not bill through Stripe, so it accepts no Stripe webhooks.");
  }
  const event = verifiedEvent(payload, signature, STRIPE_WEBHOOK_SECRET);
  const billingEvent = await toBillingEvent(event);
  return billingEvent ? applyBillingEvent(billingEvent) : "ignored";
}

function verifiedEvent(payload: string, signature: string | null, secret: string): Stripe.Event {
  if (!signature) throw new DomainError("invalid_request", "The Stripe-Signature header is missing.");
  try {
    return Stripe.webhooks.constructEvent(payload, signature, secret);
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
      throw new DomainError("invalid_request", "The Stripe-Signature header does not match this payload and the webhook secret, or is too old.");
    }
    throw error;
  }
}

async function toBillingEvent(event: Stripe.Event): Promise<BillingEvent | null> {
  const about = await subscriptionChangeOf(event);
  if (!about) return null;
  return { provider: "stripe", id: event.id, type: event.type, occurredAt: new Date(event.created * 1000), ...about };
}

type Attributed = { workspaceId: string; change: SubscriptionChange };

async function subscriptionChangeOf(event: Stripe.Event): Promise<Attributed | null> {
  switch (event.type) {
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.deleted":
      return fromSubscription(event.data.object);
    case "checkout.session.completed":
      return fromCompletedCheckout(event.data.object);
    case "invoice.paid":
    case "invoice.payment_failed":
      return fromInvoice(event.data.object, event.type === "invoice.paid");
    default:
      return null;
  }
}

/** A completed checkout carries only the subscription's id; its state is read from Stripe. */
async function fromCompletedCheckout(session: Stripe.Checkout.Session): Promise<Attributed | null> {
  if (session.mode !== "subscription" || !session.subscription) return null;
  const subscriptionId = idOf(session.subscription);
  return fromSubscription(await callStripe((stripe) => stripe.subscriptions.retrieve(subscriptionId)), session.client_reference_id);
}

async function fromSubscription(subscription: Stripe.Subscription, referencedWorkspace?: string | null): Promise<Attributed | null> {
  const snapshot = snapshotOf(subscription);
  if (!snapshot) return null;
  const workspaceId = await workspaceFor(subscription.metadata[WORKSPACE_METADATA_KEY] ?? referencedWorkspace, snapshot.customerId);
  return workspaceId ? { workspaceId, change: { kind: "snapshot", snapshot } } : null;
}

async function fromInvoice(invoice: Stripe.Invoice, paid: boolean): Promise<Attributed | null> {
  const details = invoice.parent?.subscription_details;
  if (!details) return null;
  const subscriptionId = idOf(details.subscription);
  const workspaceId = (await store.findWorkspaceIdBySubscription("stripe", subscriptionId)) ?? (await workspaceFor(details.metadata?.[WORKSPACE_METADATA_KEY], null));
  return workspaceId ? { workspaceId, change: { kind: "invoice", subscriptionId, paid } } : null;
}

function snapshotOf(subscription: Stripe.Subscription): SubscriptionSnapshot | null {
  const item = subscription.items.data[0];
  const choice = item ? choiceForStripePrice(item.price.id) : null;
  if (!item || !choice) {
    console.warn(`Stripe subscription ${subscription.id} is not for a price this service sells (STRIPE_PRICE_*); its events are ignored.`);
    return null;
  }
  return {
    subscriptionId: subscription.id,
    customerId: idOf(subscription.customer),
    status: statusOf(subscription.status),
    ...choice,
    currentPeriodStart: new Date(item.current_period_start * 1000),
    currentPeriodEnd: new Date(item.current_period_end * 1000),
    cancelAtPeriodEnd: subscription.cancel_at_period_end,
  };
}

const KNOWN_STATUSES = new Set<string>(["incomplete", "trialing", "active", "past_due", "unpaid", "paused", "canceled"]);

/** An expired first payment ends the subscription; a status Stripe adds later counts as not paid for. */
function statusOf(status: Stripe.Subscription.Status): Exclude<SubscriptionStatus, "none"> {
  if (status === "incomplete_expired") return "canceled";
  return KNOWN_STATUSES.has(status) ? (status as Exclude<SubscriptionStatus, "none">) : "incomplete";
}

/** The workspace named in the metadata we set at checkout, else the one whose Stripe customer this is. */
async function workspaceFor(named: string | null | undefined, customerId: string | null): Promise<string | null> {
  if (named && (await store.workspaceExists(named))) return named;
  const byCustomer = customerId ? await store.findWorkspaceIdByCustomer("stripe", customerId) : null;
  if (!byCustomer) console.warn(`A Stripe event names no workspace of this service (metadata ${named ?? "absent"}, customer ${customerId ?? "absent"}); ignored.`);
  return byCustomer;
}

function idOf(reference: string | { id: string }): string {
  return typeof reference === "string" ? reference : reference.id;
}
