import { clock } from "@/lib/clock";
import { log } from "@/lib/log";
import { sendMessage } from "./delivery";
import { RETRY_DELAYS_MS } from "./retries";
import { noticeDisabledWebhook } from "./disabled-notice";
import type { WebhookRunTotals } from "./schemas";
import { unsealSecret } from "./secret";
import * as store from "./store";
import type { ClaimedDelivery } from "./store";

/** Deliveries one pass claims: each endpoint's are sent one after the other, so its messages keep their order. */
const CLAIM_BATCH = 20;
/** Longer than one pass can take (CLAIM_BATCH attempts of at most 10 s each): a dead sender's claims come back then. */
const CLAIM_LEASE_MS = 5 * 60_000;

/**
 * One pass of the delivery worker: claims what is due and sends it, each endpoint's messages in
 * order, the endpoints side by side. Runs off every request path (lib/schedule.ts on the
 * self-hosted server, Vercel Cron there); a slow or dead receiver holds up only its own messages.
 */
export async function runWebhookDeliveries(): Promise<WebhookRunTotals> {
  const now = clock().now();
  const claimed = await store.claimDueDeliveries(new Date(now), new Date(now + CLAIM_LEASE_MS), CLAIM_BATCH);
  const totals: WebhookRunTotals = { attempted: 0, delivered: 0, failed: 0, disabled: 0 };
  await Promise.all(
    [...groupByEndpoint(claimed).values()].map(async (deliveries) => {
      for (const delivery of deliveries) await attempt(delivery, totals);
    }),
  );
  return totals;
}

/** Each endpoint's claimed deliveries in the order they were written (UPDATE … RETURNING keeps no order). */
function groupByEndpoint(deliveries: ClaimedDelivery[]): Map<string, ClaimedDelivery[]> {
  const groups = new Map<string, ClaimedDelivery[]>();
  const inOrder = deliveries.toSorted((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const delivery of inOrder) {
    const group = groups.get(delivery.webhookId);
    if (group) group.push(delivery);
    else groups.set(delivery.webhookId, [delivery]);
  }
  return groups;
}

async function attempt(delivery: ClaimedDelivery, totals: WebhookRunTotals): Promise<void> {
  const outcome = await sendMessage(delivery.url, unsealSecret(delivery.secretSealed), delivery);
  const at = clock().now();
  totals.attempted += 1;
  const record = {
    deliveryId: delivery.id,
    webhookId: delivery.webhookId,
    attempt: delivery.attempt,
    ...outcome,
    at: new Date(at),
  };
  if (outcome.delivered) {
    totals.delivered += 1;
    await store.recordAttempt(record, { delivered: true });
    return;
  }
  totals.failed += 1;
  const delay = RETRY_DELAYS_MS[delivery.attempt - 1];
  await store.recordAttempt(record, { delivered: false, retryAt: delay === undefined ? null : new Date(at + delay) });
  if (delay !== undefined) return;
  log().warn(
    { webhookId: delivery.webhookId, messageId: delivery.messageId },
    "a webhook message failed its last retry; disabling the endpoint",
  );
  if (await store.disableAfterFailure(delivery.webhookId, new Date(at))) {
    totals.disabled += 1;
    await noticeDisabledWebhook(delivery);
  }
}
