import { config } from "@/lib/config";
import { DomainError } from "@/lib/http/errors";
import { log } from "@/lib/log";
import Stripe from "stripe";
import type { z } from "zod";
import { choiceForStripePrice } from "./plans";
import * as store from "./store";
import {
  firstProblem,
  stripeCheckoutSessionSchema,
  type StripeEvent,
  stripeEventSchema,
  stripeInvoiceSchema,
  type StripeSubscription,
  stripeSubscriptionSchema,
} from "./stripe-events";
import { callStripe, WORKSPACE_METADATA_KEY } from "./stripe-provider";
import { applyBillingEvent, type ApplyOutcome } from "./subscriptions";
import type { BillingEvent, SubscriptionChange, SubscriptionSnapshot, SubscriptionStatus } from "./types";

export type WebhookOutcome = ApplyOutcome | "ignored";

/** How far a signature's timestamp may be from now, either way (Stripe's own default). */
const SIGNATURE_TOLERANCE_SECONDS = Stripe.webhooks.DEFAULT_TOLERANCE;

/**
 * Verifies a Stripe webhook delivery against STRIPE_WEBHOOK_SECRET (400 when forged, altered,
 * too old, dated in the future or malformed) and applies what it says about a subscription.
 * Events that concern no subscription of this service are acknowledged and ignored, so Stripe
 * stops resending them.
 */
export async function handleStripeWebhook(payload: string, signature: string | null): Promise<WebhookOutcome> {
  const { BILLING_PROVIDER, STRIPE_WEBHOOK_SECRET } = config();
  if (BILLING_PROVIDER !== "stripe" || !STRIPE_WEBHOOK_SECRET) {
    throw new DomainError("not_configured", "This deployment does not bill through Stripe, so it accepts no Stripe webhooks.");
  }
  const billingEvent = await toBillingEvent(verifiedEvent(payload, signature, STRIPE_WEBHOOK_SECRET));
  return billingEvent ? applyBillingEvent(billingEvent) : "ignored";
}

function verifiedEvent(payload: string, signature: string | null, secret: string): StripeEvent {
  if (!signature) throw new DomainError("invalid_request", "The Stripe-Signature header is missing.");
  let body: unknown;
  try {
    // Verifies the signature and the age, then parses the JSON.
    body = Stripe.webhooks.constructEvent(payload, signature, secret, SIGNATURE_TOLERANCE_SECONDS);
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
      throw new DomainError(
        "invalid_request",
        "The Stripe-Signature header does not match this payload and the webhook secret, or is too old.",
      );
    }
    if (error instanceof SyntaxError) throw malformedEvent("its body is not valid JSON");
    throw error;
  }
  // Stripe's check only bounds the age; a timestamp from the future would stay valid for as long as it is ahead.
  if (signedAt(signature) > Date.now() / 1000 + SIGNATURE_TOLERANCE_SECONDS) {
    throw new DomainError(
      "invalid_request",
      "The Stripe-Signature header is dated in the future, beyond the allowed clock difference.",
    );
  }
  return readEventPart(stripeEventSchema, body);
}

/** The header's timestamp, read as Stripe's verifier reads it (the last "t=" entry). */
function signedAt(signature: string): number {
  const timestamps = signature
    .split(",")
    .filter((entry) => entry.startsWith("t="))
    .map((entry) => Number.parseInt(entry.slice(2), 10));
  return timestamps.at(-1) ?? Number.NaN;
}

function readEventPart<Schema extends z.ZodType>(schema: Schema, value: unknown, at = ""): z.infer<Schema> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw malformedEvent(`${at}${firstProblem(parsed.error)}`);
  return parsed.data;
}

function malformedEvent(problem: string): DomainError {
  return new DomainError("invalid_request", `The Stripe event is signed but malformed (${problem}).`);
}

async function toBillingEvent(event: StripeEvent): Promise<BillingEvent | null> {
  const about = await subscriptionChangeOf(event);
  if (!about) return null;
  return { provider: "stripe", id: event.id, type: event.type, occurredAt: new Date(event.created * 1000), ...about };
}

type Attributed = { workspaceId: string; change: SubscriptionChange };

async function subscriptionChangeOf(event: StripeEvent): Promise<Attributed | null> {
  const object = event.data.object;
  switch (event.type) {
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.deleted":
      return fromSubscription(readEventPart(stripeSubscriptionSchema, object, "data.object."));
    case "checkout.session.completed":
      return fromCompletedCheckout(readEventPart(stripeCheckoutSessionSchema, object, "data.object."));
    case "invoice.paid":
    case "invoice.payment_failed":
      return fromInvoice(readEventPart(stripeInvoiceSchema, object, "data.object."), event.type === "invoice.paid");
    default:
      return null;
  }
}

/** A completed checkout carries only the subscription's id; its state is read from Stripe. */
async function fromCompletedCheckout(session: z.infer<typeof stripeCheckoutSessionSchema>): Promise<Attributed | null> {
  if (session.mode !== "subscription" || !session.subscription) return null;
  const subscriptionId = session.subscription;
  const retrieved = await callStripe((stripe) => stripe.subscriptions.retrieve(subscriptionId));
  return fromSubscription(readRetrievedSubscription(retrieved), session.client_reference_id);
}

function readRetrievedSubscription(retrieved: unknown): StripeSubscription {
  const parsed = stripeSubscriptionSchema.safeParse(retrieved);
  if (parsed.success) return parsed.data;
  log().error({ problem: firstProblem(parsed.error) }, "Stripe answered with a subscription this service cannot read");
  throw new DomainError(
    "provider_failed",
    "The payment provider answered with a subscription this service cannot read; Stripe will deliver the event again.",
  );
}

async function fromSubscription(
  subscription: StripeSubscription,
  referencedWorkspace?: string | null,
): Promise<Attributed | null> {
  const snapshot = snapshotOf(subscription);
  if (!snapshot) return null;
  const workspaceId = await workspaceFor(
    subscription.metadata[WORKSPACE_METADATA_KEY] ?? referencedWorkspace,
    snapshot.customerId,
  );
  return workspaceId ? { workspaceId, change: { kind: "snapshot", snapshot } } : null;
}

async function fromInvoice(invoice: z.infer<typeof stripeInvoiceSchema>, paid: boolean): Promise<Attributed | null> {
  const details = invoice.parent?.subscription_details;
  if (!details) return null;
  const subscriptionId = details.subscription;
  const workspaceId =
    (await store.findWorkspaceIdBySubscription("stripe", subscriptionId)) ??
    (await workspaceFor(details.metadata?.[WORKSPACE_METADATA_KEY], null));
  return workspaceId ? { workspaceId, change: { kind: "invoice", subscriptionId, paid } } : null;
}

function snapshotOf(subscription: StripeSubscription): SubscriptionSnapshot | null {
  const item = subscription.items.data[0];
  const choice = item ? choiceForStripePrice(item.price.id) : null;
  if (!item || !choice) {
    log().warn(
      { subscriptionId: subscription.id },
      "Stripe subscription is not for a price this service sells (STRIPE_PRICE_*); its events are ignored",
    );
    return null;
  }
  return {
    subscriptionId: subscription.id,
    customerId: subscription.customer,
    status: statusOf(subscription.status),
    ...choice,
    currentPeriodStart: new Date(item.current_period_start * 1000),
    currentPeriodEnd: new Date(item.current_period_end * 1000),
    cancelAtPeriodEnd: subscription.cancel_at_period_end,
  };
}

const KNOWN_STATUSES = new Set<string>(["incomplete", "trialing", "active", "past_due", "unpaid", "paused", "canceled"]);

/** An expired first payment ends the subscription; a status Stripe adds later counts as not paid for. */
function statusOf(status: string): Exclude<SubscriptionStatus, "none"> {
  if (status === "incomplete_expired") return "canceled";
  return KNOWN_STATUSES.has(status) ? (status as Exclude<SubscriptionStatus, "none">) : "incomplete";
}

/** The workspace named in the metadata we set at checkout, else the one whose Stripe customer this is. */
async function workspaceFor(named: string | null | undefined, customerId: string | null): Promise<string | null> {
  if (named && (await store.workspaceExists(named))) return named;
  const byCustomer = customerId ? await store.findWorkspaceIdByCustomer("stripe", customerId) : null;
  if (!byCustomer)
    log().warn({ workspaceInMetadata: named ?? null, customerId }, "Stripe event names no workspace of this service; ignored");
  return byCustomer;
}
