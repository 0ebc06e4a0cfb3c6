import { defineOperation, failure, ok } from "@/lib/http/operation";
import {
  accountSchema,
  checkoutBody,
  checkoutResponseSchema,
  MAX_WEBHOOK_BYTES,
  portalResponseSchema,
  webhookReceiptSchema,
} from "./schemas";

export const startCheckout = defineOperation({
  method: "post",
  path: "/api/billing/checkout",
  auth: "workspace",
  operationId: "startCheckout",
  summary: "Start a subscription",
  description:
    "Answers the address of a checkout page for the chosen plan, billed in Australian dollars: " +
    "starter (19 a month, monthly only, 100 new links per billing cycle) or unlimited (49 a month or " +
    "490 a year, no cap); both include custom domains, scan analytics and teammates. The body may be " +
    "empty: unlimited, monthly. The subscription becomes active when the payment completes. Needs an " +
    "owner, an admin or the workspace's API key.",
  tag: "Billing",
  write: true,
  body: checkoutBody,
  responses: {
    200: ok("Where to send the customer to pay.", checkoutResponseSchema),
    400: failure("The body failed validation or is not JSON; starter with yearly billing is refused."),
    403: failure("Members cannot manage the subscription, and a machine account has none (it pays per link)."),
    409: failure("The workspace already has an active subscription; change its plan in the billing portal."),
    502: failure("The payment provider did not complete the request; nothing was charged."),
    503: failure("Billing is not set up on this deployment."),
  },
});

export const openBillingPortal = defineOperation({
  method: "post",
  path: "/api/billing/portal",
  auth: "workspace",
  operationId: "openBillingPortal",
  summary: "Open the billing portal",
  description:
    "Answers the address of the billing portal: payment method, invoices, change of plan (the way to " +
    "upgrade from starter) and cancellation. Open whatever the state of the subscription, so a " +
    "lapsed customer can always pay again.",
  tag: "Billing",
  write: true,
  responses: {
    200: ok("Where to send the customer.", portalResponseSchema),
    403: failure("Members cannot manage the subscription, and a machine account has none (it pays per link)."),
    502: failure("The payment provider did not complete the request."),
    503: failure("Billing is not set up on this deployment."),
  },
});

export const receiveStripeWebhook = defineOperation({
  method: "post",
  path: "/api/billing/webhook",
  auth: "stripe_signature",
  operationId: "receiveStripeWebhook",
  summary: "Receive Stripe's events",
  description:
    "For Stripe, not for clients: a Stripe event (JSON) signed in the Stripe-Signature header. " +
    "checkout.session.completed, customer.subscription.created, updated and deleted, invoice.paid " +
    "and invoice.payment_failed change the subscription; each event id is applied once, and an event " +
    "older than the state on record changes nothing. Other events are acknowledged and ignored.",
  tag: "Billing",
  rawBodyMaxBytes: MAX_WEBHOOK_BYTES,
  parameters: [
    {
      name: "Stripe-Signature",
      in: "header",
      required: true,
      description: "Stripe's signature of the payload (t=…,v1=…), verified with STRIPE_WEBHOOK_SECRET",
    },
  ],
  responses: {
    200: ok("The event was received; outcome says whether it changed the subscription.", webhookReceiptSchema),
    413: failure(`The event is larger than ${MAX_WEBHOOK_BYTES / 1024} KiB.`),
  },
});

export const describeAccount = defineOperation({
  method: "get",
  path: "/api/account",
  auth: "workspace",
  scope: "account:read",
  operationId: "describeAccount",
  summary: "Tier and quota",
  description:
    "The workspace's plan, billing interval and subscription status, the current billing cycle, the " +
    "links created in it against the plan's cap, and what the caller may do now. Creating and " +
    "editing need an active subscription (trialing, active, or past_due within its grace period); " +
    "listing, archiving, the billing portal and the resolution of every link never do.",
  tag: "Billing",
  responses: { 200: ok("The account report.", accountSchema) },
});
