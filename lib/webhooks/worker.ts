import { clock } from "@/lib/clock";
import { log } from "@/lib/log";
import { sendMessage } from "./delivery";
import { noticeDisabledWebhook } from "./disabled-notice";
import { RETRY_DELAYS_MS } from "./retries";
import type { WebhookRunTotals } from "./schemas";
import { unsealSecret } from "./secret";
import type { ClaimedDelivery } from "./store/deliveries";
import * as deliveryStore from "./store/deliveries";

/** Deliveries one round of a pass claims; a pass claims round after round while they come full. */
const CLAIM_BATCH = 20;
/**
 * After this long a pass starts no round, and no endpoint its next message: a pass ends within
 * it and one attempt's timeout, so a backlog is sent in passes of bounded length.
 */
export const PASS_BUDGET_MS = 20_000;
/** How long a message is kept once it is delivered or failed for good: the delivery log's week. */
export const FINISHED_KEPT_MS = 7 * 24 * 60 * 60 * 1000;
/** Finished messages one pass deletes at most, so a pass stays short whatever the outbox holds. */
const PRUNE_BATCH = 1000;
/** Longer than a round can take (PASS_BUDGET_MS and one attempt of at most 10 s): a dead sender's claims come back then. */
const CLAIM_LEASE_MS = 5 * 60_000;

/**
 * One pass of the delivery worker: claims what is due and sends it, each endpoint's messages in
 * order, the endpoints side by side, round after round until nothing is due or the budget is
 * spent, then deletes finished messages older than FINISHED_KEPT_MS (the outbox would otherwise
 * keep every message ever sent). An endpoint's first failure ends its turn for the pass (its
 * other messages go back, due as they were, for the next pass), so a dead or failing receiver
 * costs the others at most one attempt's wait a pass. Runs off every request path
 * (lib/schedule.ts on the self-hosted server, Vercel Cron there).
 */
export async function runWebhookDeliveries(budgetMs = PASS_BUDGET_MS): Promise<WebhookRunTotals> {
  const endsAt = performance.now() + budgetMs;
  const totals: WebhookRunTotals = { attempted: 0, delivered: 0, failed: 0, disabled: 0 };
  const failedThisPass = new Set<string>();
  for (;;) {
    const now = clock().now();
    const claimed = await deliveryStore.claimDueDeliveries(new Date(now), new Date(now + CLAIM_LEASE_MS), CLAIM_BATCH, [
      ...failedThisPass,
    ]);
    await Promise.all(
      [...groupByEndpoint(claimed).values()].map((deliveries) => sendInOrder(deliveries, totals, failedThisPass, endsAt)),
    );
    if (claimed.length < CLAIM_BATCH || performance.now() >= endsAt) break;
  }
  await deliveryStore.pruneFinishedDeliveries(new Date(clock().now() - FINISHED_KEPT_MS), PRUNE_BATCH);
  return totals;
}

/** An endpoint's claimed deliveries, one after the other until one fails or the pass's time is up; the rest go back. */
async function sendInOrder(
  deliveries: ClaimedDelivery[],
  totals: WebhookRunTotals,
  failedThisPass: Set<string>,
  endsAt: number,
): Promise<void> {
  for (const [index, delivery] of deliveries.entries()) {
    if (performance.now() >= endsAt) return deliveryStore.releaseClaims(deliveries.slice(index));
    if (!(await attempt(delivery, totals))) {
      failedThisPass.add(delivery.webhookId);
      return deliveryStore.releaseClaims(deliveries.slice(index + 1));
    }
  }
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

/** One attempt, recorded; whether it delivered the message. */
async function attempt(delivery: ClaimedDelivery, totals: WebhookRunTotals): Promise<boolean> {
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
    await deliveryStore.recordAttempt(record, { delivered: true });
    return true;
  }
  totals.failed += 1;
  const delay = RETRY_DELAYS_MS[delivery.attempt - 1];
  await deliveryStore.recordAttempt(record, { delivered: false, retryAt: delay === undefined ? null : new Date(at + delay) });
  if (delay !== undefined) return false;
  log().warn(
    { webhookId: delivery.webhookId, messageId: delivery.messageId },
    "a webhook message failed its last retry; disabling the endpoint",
  );
  if (await deliveryStore.disableAfterFailure(delivery.webhookId, new Date(at))) {
    totals.disabled += 1;
    await noticeDisabledWebhook(delivery);
  }
  return false;
}
