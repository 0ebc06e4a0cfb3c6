import { defineOperation, failure, ok, type ParameterSpec } from "@/lib/http/operation";
import {
  createWebhookBody,
  deliveryLogQuery,
  deliveryLogSchema,
  deliveryRetrySchema,
  testOutcomeSchema,
  updateWebhookBody,
  webhookListSchema,
  webhookRunTotalsSchema,
  webhookSchema,
  webhookWithSecretSchema,
} from "./schemas";

const WEBHOOK_ID = { name: "id", in: "path", required: true, description: "the webhook's id" } as const satisfies ParameterSpec;
const MANAGE_REFUSED = failure("Your role does not allow managing webhooks: owners, admins and the workspace's API key may.");
const NOT_FOUND = failure("No webhook with this id exists in this workspace.");
const URL_REFUSED = failure(
  "The URL is refused: not http(s), or it points (in any encoding, or through its DNS records) at an internal or private address.",
);

export const createWebhook = defineOperation({
  method: "post",
  path: "/api/webhooks",
  auth: "workspace",
  scope: "webhooks:write",
  operationId: "createWebhook",
  summary: "Add a webhook",
  description:
    "Subscribes a receiver URL to events of the workspace. Messages are signed as the Standard " +
    "Webhooks specification says (webhook-id, webhook-timestamp, webhook-signature: v1,<base64 " +
    "HMAC-SHA256 of id.timestamp.body>) with the secret in this answer, which is shown only here. " +
    "Delivery is at least once, retried with exponential backoff over about a day; the endpoint is " +
    "disabled after a message's last retry fails. The URL obeys the destination rules of links and " +
    "is checked again against the address actually connected to at every attempt.",
  tag: "Webhooks",
  write: true,
  body: createWebhookBody,
  responses: {
    201: ok("The webhook, with its signing secret (shown once).", webhookWithSecretSchema),
    400: failure("The body failed validation."),
    403: MANAGE_REFUSED,
    409: failure("The workspace already has the most webhooks it may have."),
    422: URL_REFUSED,
  },
});

export const listWebhooks = defineOperation({
  method: "get",
  path: "/api/webhooks",
  auth: "workspace",
  scope: "webhooks:read",
  operationId: "listWebhooks",
  summary: "List webhooks",
  description: "Every webhook of the workspace, most recent first, without secrets.",
  tag: "Webhooks",
  responses: { 200: ok("The workspace's webhooks.", webhookListSchema), 403: MANAGE_REFUSED },
});

export const getWebhook = defineOperation({
  method: "get",
  path: "/api/webhooks/{id}",
  auth: "workspace",
  scope: "webhooks:read",
  operationId: "getWebhook",
  summary: "Get a webhook",
  description: "The webhook, without its secret.",
  tag: "Webhooks",
  parameters: [WEBHOOK_ID],
  responses: { 200: ok("The webhook.", webhookSchema), 403: MANAGE_REFUSED, 404: NOT_FOUND },
});

export const updateWebhook = defineOperation({
  method: "patch",
  path: "/api/webhooks/{id}",
  auth: "workspace",
  scope: "webhooks:write",
  operationId: "updateWebhook",
  summary: "Change a webhook",
  description:
    "Changes whatever the body names: the URL (checked as on creation), the events, the description, " +
    "or disabled (false resumes deliveries after the service disabled the endpoint).",
  tag: "Webhooks",
  write: true,
  body: updateWebhookBody,
  parameters: [WEBHOOK_ID],
  responses: {
    200: ok("The webhook as changed.", webhookSchema),
    400: failure("The body failed validation."),
    403: MANAGE_REFUSED,
    404: NOT_FOUND,
    422: URL_REFUSED,
  },
});

export const deleteWebhook = defineOperation({
  method: "delete",
  path: "/api/webhooks/{id}",
  auth: "workspace",
  scope: "webhooks:write",
  operationId: "deleteWebhook",
  summary: "Delete a webhook",
  description: "Deletes the webhook, its messages not yet sent and its delivery log.",
  tag: "Webhooks",
  write: true,
  parameters: [WEBHOOK_ID],
  responses: { 204: { description: "Deleted." }, 403: MANAGE_REFUSED, 404: NOT_FOUND },
});

export const rotateWebhookSecret = defineOperation({
  method: "post",
  path: "/api/webhooks/{id}/rotate-secret",
  auth: "workspace",
  scope: "webhooks:write",
  operationId: "rotateWebhookSecret",
  summary: "Rotate a webhook's secret",
  description: "Replaces the signing secret; the answer shows the new one once, and every attempt from now on is signed with it.",
  tag: "Webhooks",
  write: true,
  parameters: [WEBHOOK_ID],
  responses: {
    200: ok("The webhook with its new secret (shown once).", webhookWithSecretSchema),
    403: MANAGE_REFUSED,
    404: NOT_FOUND,
  },
});

export const testWebhook = defineOperation({
  method: "post",
  path: "/api/webhooks/{id}/test",
  auth: "workspace",
  scope: "webhooks:write",
  operationId: "testWebhook",
  summary: "Send a test message",
  description:
    "Sends a signed ping event to the endpoint now (even when disabled) and answers whether it was " +
    "delivered. Only that: when it was not, status_code is null and error one generic sentence, " +
    "whatever happened (another status, a refused or timed-out connection); duration_ms is 0. The " +
    "attempt appears so in the delivery log and is not retried.",
  tag: "Webhooks",
  write: true,
  parameters: [WEBHOOK_ID],
  responses: { 200: ok("The attempt's outcome.", testOutcomeSchema), 403: MANAGE_REFUSED, 404: NOT_FOUND },
});

export const webhookDeliveries = defineOperation({
  method: "get",
  path: "/api/webhooks/{id}/deliveries",
  auth: "workspace",
  scope: "webhooks:read",
  operationId: "listWebhookDeliveries",
  summary: "A webhook's delivery log",
  description:
    "The most recent attempts, newest first: the event, the message's webhook-id, the attempt's " +
    "number, the status code or the error, its duration and, for a message still to be retried, when.",
  tag: "Webhooks",
  query: deliveryLogQuery,
  queryDescriptions: { limit: "how many attempts, 1 to 100 (50 when unsaid)" },
  parameters: [WEBHOOK_ID],
  responses: {
    200: ok("The recent attempts.", deliveryLogSchema),
    400: failure("The query failed validation."),
    403: MANAGE_REFUSED,
    404: NOT_FOUND,
  },
});

export const retryWebhookDelivery = defineOperation({
  method: "post",
  path: "/api/webhooks/{id}/deliveries/{message_id}/retry",
  auth: "workspace",
  scope: "webhooks:write",
  operationId: "retryWebhookDelivery",
  summary: "Retry a message now",
  description:
    "Sends a message that has not been delivered again on the delivery worker's next pass (within " +
    "WEBHOOK_DELIVERY_INTERVAL_SECONDS self-hosted, a minute on Vercel), with the same webhook-id, and starts its " +
    "retries afresh. The endpoint must be enabled.",
  tag: "Webhooks",
  write: true,
  parameters: [
    WEBHOOK_ID,
    { name: "message_id", in: "path", required: true, description: "the message's webhook-id, from the delivery log" },
  ],
  responses: {
    200: ok("The message is due now.", deliveryRetrySchema),
    403: MANAGE_REFUSED,
    404: failure("No webhook with this id in this workspace, or no message with this id for it."),
    409: failure("The message was delivered already, or the endpoint is disabled."),
  },
});

export const deliverWebhooks = defineOperation({
  method: "get",
  path: "/api/cron/webhooks",
  auth: "cron",
  operationId: "deliverWebhooks",
  summary: "Send due webhook messages (Vercel Cron)",
  description:
    "One pass of the delivery worker: claims the messages due (first attempts and retries) and sends " +
    "them, round after round for up to 20 seconds (then it starts no further attempt). The self-hosted " +
    "server runs it every WEBHOOK_DELIVERY_INTERVAL_SECONDS by itself.",
  tag: "Operations",
  responses: {
    200: ok("What the pass did.", webhookRunTotalsSchema),
    401: failure("The CRON_SECRET bearer token is missing or wrong."),
  },
});
