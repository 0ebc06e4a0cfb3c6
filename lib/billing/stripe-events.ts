import { storedText } from "@/lib/http/schemas";
import { z } from "zod";
import { WORKSPACE_METADATA_KEY } from "./stripe-provider";

/**
 * The parts of Stripe's webhook events this service reads, checked before anything is used: a
 * correctly signed event can still be malformed (a bug on either side, a hand-made test event),
 * and it must then be refused with 400, not crash halfway through. Unknown fields are dropped.
 */

/** Stripe ids are ASCII letters, digits and underscores (evt_…, sub_…, cus_…, price_…). */
const stripeId = z.string().regex(/^\w{1,255}$/, "must be a Stripe id");

/** Text that may be stored or looked up: no control characters (PostgreSQL refuses NUL). */
const plainText = storedText(z.string().max(500, "must be at most 500 characters"));

/** Seconds since the epoch, up to the last second of year 9999 (what a timestamp column holds). */
const unixSeconds = z.number().int().min(0).max(253_402_300_799, "must be a date before the year 10000");

/** A reference Stripe sends either as an id or as the expanded object. */
const reference = z
  .union([stripeId, z.object({ id: stripeId })])
  .transform((value) => (typeof value === "string" ? value : value.id));

const metadata = z.object({ [WORKSPACE_METADATA_KEY]: plainText.optional() });

export const stripeEventSchema = z.object({
  id: stripeId,
  type: plainText,
  created: unixSeconds,
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});

export const stripeSubscriptionSchema = z.object({
  id: stripeId,
  customer: reference,
  status: plainText,
  cancel_at_period_end: z.boolean(),
  metadata,
  items: z.object({
    data: z.array(
      z.object({
        price: z.object({ id: plainText }),
        current_period_start: unixSeconds,
        current_period_end: unixSeconds,
      }),
    ),
  }),
});

export const stripeCheckoutSessionSchema = z.object({
  mode: plainText,
  subscription: reference.nullish(),
  client_reference_id: plainText.nullish(),
});

export const stripeInvoiceSchema = z.object({
  parent: z
    .object({
      subscription_details: z.object({ subscription: reference, metadata: metadata.nullish() }).nullish(),
    })
    .nullish(),
});

export type StripeEvent = z.infer<typeof stripeEventSchema>;
export type StripeSubscription = z.infer<typeof stripeSubscriptionSchema>;

/** The first problem, as "data.object.items: Invalid input", for an error sentence. */
export function firstProblem(error: z.ZodError): string {
  const issue = error.issues[0]!;
  return issue.path.length === 0 ? issue.message : `${issue.path.join(".")}: ${issue.message}`;
}
