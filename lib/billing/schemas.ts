import { epochMilliseconds } from "@/lib/http/schemas";
import { z } from "zod";
import { DEFAULT_INTERVAL, DEFAULT_PLAN, INTERVALS, PLAN_IDS, isOffered } from "./plans";
import { SUBSCRIPTION_STATUSES } from "./types";

const plan = z.enum(PLAN_IDS, { error: `must be one of ${PLAN_IDS.join(", ")}` });
const interval = z.enum(INTERVALS, { error: `must be one of ${INTERVALS.join(", ")}` });

const ONLY_WHAT_IS_SOLD = { message: "the starter plan is billed monthly only", path: ["interval"] };

/** The local portal's plan forms. */
export const planChoiceSchema = z.strictObject({ plan, interval }).refine(isOffered, ONLY_WHAT_IS_SOLD);

export const checkoutBody = z
  .strictObject({
    plan: plan.default(DEFAULT_PLAN).meta({ description: "starter: 19 AUD a month, 100 new links a cycle; unlimited: no cap" }),
    interval: interval.default(DEFAULT_INTERVAL).meta({ description: "billing interval; starter is monthly only (year → 400)" }),
  })
  .refine(isOffered, ONLY_WHAT_IS_SOLD)
  .meta({ id: "CheckoutRequest", description: "May be empty: unlimited, monthly." });

export const checkoutResponseSchema = z
  .object({ url: z.url().meta({ description: "where to send the customer to pay" }) })
  .meta({ id: "CheckoutResponse" });

export const portalResponseSchema = z
  .object({ url: z.url().meta({ description: "the billing portal: payment method, invoices, change of plan, cancellation" }) })
  .meta({ id: "PortalResponse" });

export const accountSchema = z
  .object({
    workspace_id: z.string(),
    workspace_kind: z
      .enum(["personal", "team", "machine"])
      .meta({ description: "a machine account buys each link and has no subscription" }),
    provider: z
      .enum(["stripe", "local"])
      .nullable()
      .meta({ description: "who bills this deployment; local takes no real payment; null when billing is not set up" }),
    plan: plan.nullable(),
    interval: interval.nullable(),
    status: z.enum(SUBSCRIPTION_STATUSES).meta({
      description: "none: never subscribed; trialing and active allow create and edit; past_due does during its grace period",
    }),
    active: z.boolean().meta({ description: "whether the subscription currently allows creating and editing links" }),
    cancel_at_period_end: z.boolean(),
    grace_ends_at: epochMilliseconds
      .nullable()
      .meta({ description: "past_due only: when creating and editing stop unless the payment succeeds" }),
    cycle_start: epochMilliseconds.nullable(),
    cycle_end: epochMilliseconds.nullable(),
    links_created_this_cycle: z
      .number()
      .int()
      .nullable()
      .meta({ description: "null when there is no billing cycle (no live subscription)" }),
    cap: z.number().int().nullable().meta({ description: "new links allowed per cycle; null means no cap" }),
    remaining: z
      .number()
      .int()
      .nullable()
      .meta({ description: "new links left this cycle; null when there is no cap or no billing cycle" }),
    can: z
      .object({
        list_links: z.boolean(),
        create_links: z
          .boolean()
          .meta({ description: "with a bearer credential; a machine account buys links by machine payment instead" }),
        edit_links: z.boolean(),
        archive_links: z.boolean().meta({ description: "archiving never needs a subscription: it changes no destination" }),
        use_custom_domains: z.boolean(),
        manage_billing: z.boolean(),
      })
      .meta({
        description: "what the caller may do now, by subscription and role; existing links keep resolving whatever it says",
      }),
  })
  .meta({ id: "Account" });

/** Stripe's events are tens of kilobytes at most; the signature is checked only after reading. */
export const MAX_WEBHOOK_BYTES = 512 * 1024;

export const webhookReceiptSchema = z
  .object({
    received: z.literal(true),
    outcome: z.enum(["applied", "stale", "duplicate", "ignored"]).meta({
      description:
        "applied: the subscription changed; stale: older than the state on record; duplicate: this event " +
        "id was applied before; ignored: not about a subscription of this service",
    }),
  })
  .meta({ id: "WebhookReceipt" });

export type AccountReport = z.infer<typeof accountSchema>;
