import { epochMilliseconds, storedText } from "@/lib/http/schemas";
import { z } from "zod";
import { EVENT_TYPES } from "./events";

export const MAX_WEBHOOKS_PER_WORKSPACE = 20;

const url = storedText(
  z.string({ error: "must be a string" }).min(1, "must not be empty").max(2048, "must be at most 2048 characters").meta({
    description: "the receiver: an http or https URL on a public address",
    example: "https://example.com/hooks/permalink",
  }),
);

const events = z
  .array(z.enum(EVENT_TYPES, { error: `must each be one of ${EVENT_TYPES.join(", ")}` }))
  .min(1, "must name at least one event")
  .max(EVENT_TYPES.length, `must name at most ${EVENT_TYPES.length} events`)
  .transform((names) => [...new Set(names)])
  .meta({ description: "the events sent to this endpoint" });

const description = storedText(
  z
    .string({ error: "must be a string" })
    .trim()
    .max(200, "must be at most 200 characters")
    .meta({ description: "a note for people" }),
);

export const createWebhookBody = z
  .strictObject({ url, events, description: description.optional() })
  .meta({ id: "CreateWebhookRequest" });

export const updateWebhookBody = z
  .strictObject({
    url: url.optional(),
    events: events.optional(),
    description: description.optional(),
    disabled: z
      .boolean({ error: "must be true or false" })
      .optional()
      .meta({ description: "true stops deliveries; false resumes them, including after the service disabled the endpoint" }),
  })
  .meta({ id: "UpdateWebhookRequest" });

export const webhookSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.enum(EVENT_TYPES)),
    description: z.string().nullable(),
    disabled: z
      .boolean()
      .meta({ description: "true while nothing is sent: set by PATCH, or by the service after a delivery's last retry failed" }),
    disabled_at: epochMilliseconds.nullable(),
    rotation_due: z.boolean().meta({
      description:
        "true when the person who created or last rotated the secret left the workspace or lost admin rights: " +
        "rotate it (POST /api/webhooks/{id}/rotate-secret), which clears this",
    }),
    created_at: epochMilliseconds,
  })
  .meta({ id: "Webhook" });

export const webhookWithSecretSchema = webhookSchema
  .extend({
    secret: z.string().meta({
      description: "whsec_ and the base64 signing key (Standard Webhooks); shown only in this answer",
      example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    }),
  })
  .meta({ id: "WebhookWithSecret" });

export const webhookListSchema = z.object({ webhooks: z.array(webhookSchema) }).meta({ id: "WebhookList" });

export const deliveryAttemptSchema = z
  .object({
    message_id: z.string().meta({ description: "the webhook-id header: the same on every attempt of a message" }),
    event: z.string(),
    attempt: z.number().int().meta({ description: "1 for the first attempt" }),
    status_code: z.number().int().nullable().meta({ description: "the receiver's HTTP status; null when none came" }),
    error: z.string().nullable().meta({ description: "why the attempt failed, when it did" }),
    duration_ms: z.number().int(),
    attempted_at: epochMilliseconds,
    delivered: z.boolean(),
    next_retry_at: epochMilliseconds.nullable().meta({ description: "when the message is tried again; null when it is not" }),
  })
  .meta({ id: "WebhookDeliveryAttempt" });

export const deliveryLogSchema = z.object({ attempts: z.array(deliveryAttemptSchema) }).meta({ id: "WebhookDeliveryLog" });

export const deliveryLogQuery = z.strictObject({
  limit: z.coerce
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(100, "must be at most 100")
    .optional(),
});

export const deliveryRetrySchema = z
  .object({
    message_id: z.string(),
    next_retry_at: epochMilliseconds.meta({ description: "now: the next pass of the delivery worker sends it" }),
  })
  .meta({ id: "WebhookDeliveryRetry" });

export const testOutcomeSchema = deliveryAttemptSchema.meta({ id: "WebhookTestOutcome" });

export const webhookRunTotalsSchema = z
  .object({
    attempted: z.number().int(),
    delivered: z.number().int(),
    failed: z.number().int().meta({ description: "attempts that failed (each retried later, or the last)" }),
    disabled: z.number().int().meta({ description: "endpoints disabled by this run after a message's last retry failed" }),
  })
  .meta({ id: "WebhookRunTotals" });

export type CreateWebhookInput = z.infer<typeof createWebhookBody>;
export type UpdateWebhookInput = z.infer<typeof updateWebhookBody>;
export type WebhookView = z.infer<typeof webhookSchema>;
export type DeliveryRetryView = z.infer<typeof deliveryRetrySchema>;
export type DeliveryAttemptView = z.infer<typeof deliveryAttemptSchema>;
export type WebhookRunTotals = z.infer<typeof webhookRunTotalsSchema>;
