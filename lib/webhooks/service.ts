import { claimerOfKey } from "@/lib/auth/store";
import { clock } from "@/lib/clock";
import { isRecordId, newId } from "@/lib/db/random";
import { DomainError, notFound } from "@/lib/http/errors";
import { requirePermission } from "@/lib/workspaces/permissions";
import type { Principal } from "@/lib/workspaces/types";
import { sendMessage } from "./delivery";
import { eventBody } from "./events";
import { newMessageId } from "./outbox";
import { vetReceiverUrl } from "./receiver";
import {
  type CreateWebhookInput,
  type DeliveryAttemptView,
  type DeliveryRetryView,
  MAX_WEBHOOKS_PER_WORKSPACE,
  type UpdateWebhookInput,
  type WebhookView,
} from "./schemas";
import { newSigningSecret, sealSecret, unsealSecret } from "./secret";
import type { AttemptLogRow } from "./store/deliveries";
import * as deliveryStore from "./store/deliveries";
import type { WebhookRow } from "./store/endpoints";
import * as endpointStore from "./store/endpoints";

const MANAGE_REFUSED = "Your role does not allow managing webhooks: owners, admins and the workspace's API key may.";
const WEBHOOK_NOT_FOUND = "No webhook with this id exists in this workspace.";
const DEFAULT_LOG_SIZE = 50;

export async function createWebhook(principal: Principal, input: CreateWebhookInput): Promise<WebhookView & { secret: string }> {
  requirePermission(principal, "webhooks.manage", MANAGE_REFUSED);
  const url = await vetReceiverUrl(input.url);
  if ((await endpointStore.countWorkspaceWebhooks(principal.workspaceId)) >= MAX_WEBHOOKS_PER_WORKSPACE)
    throw new DomainError("conflict", `A workspace may have at most ${MAX_WEBHOOKS_PER_WORKSPACE} webhooks; delete one first.`);
  const secret = newSigningSecret();
  const row = await endpointStore.insertWebhook({
    id: newId("wh"),
    workspaceId: principal.workspaceId,
    url,
    events: input.events,
    description: input.description || null,
    secretSealed: sealSecret(secret),
    createdByUserId: await personActing(principal),
  });
  return { ...toWebhookView(row), secret };
}

export async function listWebhooks(principal: Principal): Promise<{ webhooks: WebhookView[] }> {
  requirePermission(principal, "webhooks.manage", MANAGE_REFUSED);
  return { webhooks: (await endpointStore.listWorkspaceWebhooks(principal.workspaceId)).map(toWebhookView) };
}

export async function getWebhook(principal: Principal, id: string): Promise<WebhookView> {
  return toWebhookView(await findOwnWebhook(principal, id));
}

export async function updateWebhook(principal: Principal, id: string, changes: UpdateWebhookInput): Promise<WebhookView> {
  const webhook = await findOwnWebhook(principal, id);
  const url = changes.url === undefined ? undefined : await vetReceiverUrl(changes.url);
  const description = changes.description === undefined ? undefined : changes.description || null;
  return toWebhookView(
    await endpointStore.updateWebhook(webhook.id, { url, events: changes.events, description, disabled: changes.disabled }),
  );
}

export async function deleteWebhook(principal: Principal, id: string): Promise<void> {
  const webhook = await findOwnWebhook(principal, id);
  await endpointStore.deleteWebhook(webhook.id);
}

/** A new secret, shown once; the old one stops signing at once (messages already due are signed with the new one). */
export async function rotateSecret(principal: Principal, id: string): Promise<WebhookView & { secret: string }> {
  const webhook = await findOwnWebhook(principal, id);
  const secret = newSigningSecret();
  const row = await endpointStore.replaceSecret(webhook.id, sealSecret(secret), await personActing(principal));
  return { ...toWebhookView(row), secret };
}

/**
 * The person who sees a secret this request is answered with: the session's user, or whoever
 * claimed the API key (a machine account's key has nobody). Their leaving retires what they saw.
 */
async function personActing(principal: Principal): Promise<string | null> {
  return principal.kind === "session" ? principal.userId : claimerOfKey(principal.apiKeyId);
}

/** Why a test message was not delivered, the same whatever happened: the test is no probe of what answers where. */
export const TEST_NOT_DELIVERED =
  "The receiver did not accept the test message: check that its URL is right and that it answers a signed POST with a 2xx status within 10 seconds.";

/**
 * Sends a ping to the endpoint now, disabled or not, and answers with the attempt (logged, never
 * retried). The answer and the log say only whether it was delivered: no status code, connection
 * error or timing, so testing an address is no way to learn which ports answer and how.
 */
export async function testWebhook(principal: Principal, id: string): Promise<DeliveryAttemptView> {
  const webhook = await findOwnWebhook(principal, id);
  const messageId = newMessageId();
  const body = eventBody("ping", clock().now(), { webhook_id: webhook.id });
  const sent = await sendMessage(webhook.url, unsealSecret(await endpointStore.readSealedSecret(webhook.id)), {
    messageId,
    body,
  });
  const outcome = sent.delivered
    ? { delivered: true, statusCode: sent.statusCode, error: null, durationMs: 0 }
    : { delivered: false, statusCode: null, error: TEST_NOT_DELIVERED, durationMs: 0 };
  const at = new Date(clock().now());
  const deliveryId = await deliveryStore.insertSentDelivery({
    webhookId: webhook.id,
    messageId,
    body,
    delivered: outcome.delivered,
    at,
  });
  await deliveryStore.insertAttempt({ deliveryId, webhookId: webhook.id, attempt: 1, ...outcome, at });
  return {
    message_id: messageId,
    event: "ping",
    attempt: 1,
    status_code: outcome.statusCode,
    error: outcome.error,
    duration_ms: outcome.durationMs,
    attempted_at: at.getTime(),
    delivered: outcome.delivered,
    next_retry_at: null,
  };
}

/** Sends a message that was not delivered again on the worker's next pass, same webhook-id, retries afresh. */
export async function retryDelivery(principal: Principal, id: string, messageId: string): Promise<DeliveryRetryView> {
  const webhook = await findOwnWebhook(principal, id);
  if (webhook.disabledAt) throw new DomainError("conflict", "This webhook is disabled: enable it first, then retry.");
  const now = clock().now();
  const outcome = await deliveryStore.retryNow(webhook.id, messageId, new Date(now));
  if (outcome === "missing") throw notFound("This webhook has no message with this id.");
  if (outcome === "delivered") throw new DomainError("conflict", "This message was delivered already.");
  return { message_id: messageId, next_retry_at: now };
}

export async function deliveryLog(
  principal: Principal,
  id: string,
  limit = DEFAULT_LOG_SIZE,
): Promise<{ attempts: DeliveryAttemptView[] }> {
  const webhook = await findOwnWebhook(principal, id);
  return { attempts: (await deliveryStore.recentAttempts(webhook.id, limit)).map(toAttemptView) };
}

async function findOwnWebhook(principal: Principal, id: string): Promise<WebhookRow> {
  requirePermission(principal, "webhooks.manage", MANAGE_REFUSED);
  const webhook = isRecordId(id) ? await endpointStore.findWorkspaceWebhook(principal.workspaceId, id) : null;
  if (!webhook) throw notFound(WEBHOOK_NOT_FOUND);
  return webhook;
}

function toWebhookView(row: WebhookRow): WebhookView {
  return {
    id: row.id,
    url: row.url,
    events: row.events as WebhookView["events"],
    description: row.description,
    disabled: row.disabledAt !== null,
    disabled_at: row.disabledAt?.getTime() ?? null,
    rotation_due: row.rotationDueAt !== null,
    created_at: row.createdAt.getTime(),
  };
}

function toAttemptView(row: AttemptLogRow): DeliveryAttemptView {
  const latest = row.attempt === row.attempts;
  return {
    message_id: row.messageId,
    event: row.eventType,
    attempt: row.attempt,
    status_code: row.statusCode,
    error: row.error,
    duration_ms: row.durationMs,
    attempted_at: row.createdAt.getTime(),
    delivered: row.statusCode !== null && row.error === null,
    next_retry_at: latest && row.state === "pending" ? (row.nextAttemptAt?.getTime() ?? null) : null,
  };
}
