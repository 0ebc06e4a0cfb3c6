/** The outbox and its deliveries: messages written in the change's transaction, claimed, attempted, logged and pruned. */
import { clock } from "@/lib/clock";
import { db, type DbClient, transaction } from "@/lib/db/client";
import type pg from "pg";
import type { EventType } from "../events";

/**
 * The outbox write: one pending delivery of this message for every live endpoint of the workspace
 * that subscribes to `type`, in the caller's transaction, so the message exists exactly when the
 * change it announces committed. One statement, and nothing at all when no endpoint listens.
 */
export async function enqueueMessage(
  client: DbClient,
  message: { workspaceId: string; type: EventType; messageId: string; body: string },
): Promise<void> {
  const now = new Date(clock().now());
  await client.$executeRaw`
    INSERT INTO webhook_deliveries (webhook_id, message_id, event_type, body, next_attempt_at, created_at)
    SELECT id, ${message.messageId}, ${message.type}, ${message.body}, ${now}, ${now}
    FROM webhooks
    WHERE workspace_id = ${message.workspaceId} AND disabled_at IS NULL AND ${message.type} = ANY(events)`;
}

/**
 * enqueueMessage for many messages at once (one change to many links: a tag renamed or deleted), each to
 * every live endpoint of its workspace that subscribes to its type: one statement, in the messages' order.
 */
export async function enqueueMessages(
  client: DbClient,
  messages: readonly { workspaceId: string; type: EventType; messageId: string; body: string }[],
): Promise<void> {
  if (messages.length === 0) return;
  const now = new Date(clock().now());
  await client.$executeRaw`
    INSERT INTO webhook_deliveries (webhook_id, message_id, event_type, body, next_attempt_at, created_at)
    SELECT w.id, m.message_id, m.event_type, m.body, ${now}, ${now}
    FROM unnest(
      ${messages.map((m) => m.workspaceId)}::text[], ${messages.map((m) => m.type)}::text[],
      ${messages.map((m) => m.messageId)}::text[], ${messages.map((m) => m.body)}::text[]
    ) WITH ORDINALITY AS m(workspace_id, event_type, message_id, body, ord)
    JOIN webhooks w ON w.workspace_id = m.workspace_id AND w.disabled_at IS NULL AND m.event_type = ANY(w.events)
    ORDER BY m.ord, w.id`;
}

/**
 * link.scanned for a batch of scans, on the scan batch's own connection and transaction, for every
 * live endpoint of the link's workspace that listens. `messages` is built by scanMessages, each
 * link's in order. A link's first message joins that link's newest message to the endpoint when
 * it was never tried (its scans appended: a receiver has seen no attempt, so no webhook-id
 * changes meaning) and both fit in `maxBytes`; the rest are new messages, which stay joinable
 * until their first attempt (claimDueDeliveries). A slow or dead receiver so gets one growing
 * message per link, not one a batch.
 */
export async function enqueueScanMessages(
  client: pg.ClientBase,
  messages: { linkId: string; messageId: string; body: string }[],
  now: Date,
  maxBytes: number,
): Promise<void> {
  if (messages.length === 0) return;
  await client.query({
    name: "webhooks.enqueue-scans",
    text: `
      WITH batch AS (
        SELECT w.id AS webhook_id, m.link_id, m.message_id, m.body, m.ord
        FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS m(link_id, message_id, body, ord)
        JOIN links l ON l.id = m.link_id
        JOIN webhooks w ON w.workspace_id = l.workspace_id AND w.disabled_at IS NULL AND 'link.scanned' = ANY(w.events)
      ), firsts AS (
        SELECT DISTINCT ON (webhook_id, link_id) * FROM batch ORDER BY webhook_id, link_id, ord
      ), joined AS (
        UPDATE webhook_deliveries d
        SET body = left(d.body, -3) || ',' || substr(f.body, strpos(f.body, '"scans":[') + 9)
        FROM firsts f
        WHERE d.webhook_id = f.webhook_id AND d.joinable_link_id = f.link_id AND d.state = 'pending'
          AND d.id = (SELECT max(x.id) FROM webhook_deliveries x WHERE x.webhook_id = f.webhook_id AND x.joinable_link_id = f.link_id)
          AND octet_length(d.body) + octet_length(f.body) <= $5
        RETURNING f.webhook_id, f.message_id
      )
      INSERT INTO webhook_deliveries (webhook_id, message_id, event_type, joinable_link_id, body, next_attempt_at, created_at)
      SELECT b.webhook_id, b.message_id, 'link.scanned', b.link_id, b.body, $4, $4
      FROM batch b
      WHERE NOT EXISTS (SELECT 1 FROM joined j WHERE j.webhook_id = b.webhook_id AND j.message_id = b.message_id)
      ORDER BY b.webhook_id, b.link_id, b.ord`,
    values: [messages.map((m) => m.linkId), messages.map((m) => m.messageId), messages.map((m) => m.body), now, maxBytes],
  });
}

/** Whether any live endpoint listens to link.scanned: a batch for a deployment without one builds no messages. */
export async function anyScanListener(client: pg.ClientBase): Promise<boolean> {
  const { rows } = await client.query({
    name: "webhooks.any-scan-listener",
    text: "SELECT EXISTS (SELECT 1 FROM webhooks WHERE disabled_at IS NULL AND 'link.scanned' = ANY(events)) AS listening",
  });
  return rows[0]?.listening === true;
}

export type ClaimedDelivery = {
  id: bigint;
  webhookId: string;
  workspaceId: string;
  url: string;
  secretSealed: string;
  messageId: string;
  eventType: string;
  body: string;
  attempt: number;
  /** When it was due before the claim: where releaseClaims puts it back. */
  dueAt: Date;
};

/**
 * Claims up to `limit` due deliveries of live endpoints (but those in `skipping`) for one sender:
 * FOR UPDATE SKIP LOCKED so instances claiming at once take different rows, and the claim pushes
 * next_attempt_at to `leaseUntil`, so a sender that dies mid-attempt leaves the row to be claimed
 * again then (at least once). Counts the attempt in the same statement, and closes a link.scanned
 * message to later scans: a message a receiver may have seen never changes.
 */
export async function claimDueDeliveries(
  now: Date,
  leaseUntil: Date,
  limit: number,
  skipping: readonly string[],
): Promise<ClaimedDelivery[]> {
  return db().$queryRaw<ClaimedDelivery[]>`
    UPDATE webhook_deliveries d
    SET next_attempt_at = ${leaseUntil}, attempts = d.attempts + 1, joinable_link_id = NULL
    FROM webhooks w, (
      SELECT due.id, due.next_attempt_at FROM webhook_deliveries due
      JOIN webhooks live ON live.id = due.webhook_id AND live.disabled_at IS NULL
      WHERE due.state = 'pending' AND due.next_attempt_at <= ${now} AND NOT (due.webhook_id = ANY(${skipping}::text[]))
      ORDER BY due.next_attempt_at, due.id
      LIMIT ${limit}
      FOR UPDATE OF due SKIP LOCKED) picked
    WHERE w.id = d.webhook_id AND d.id = picked.id
    RETURNING d.id, d.webhook_id AS "webhookId", w.workspace_id AS "workspaceId", w.url, w.secret_sealed AS "secretSealed",
      d.message_id AS "messageId", d.event_type AS "eventType", d.body, d.attempts AS attempt, picked.next_attempt_at AS "dueAt"`;
}

/**
 * Deletes up to `limit` messages written before `before` that are delivered or failed for good,
 * oldest first, with their attempts; a message still waiting is kept however old. Answers how many.
 */
export async function pruneFinishedDeliveries(before: Date, limit: number): Promise<number> {
  return db().$executeRaw`
    DELETE FROM webhook_deliveries WHERE id IN (
      SELECT id FROM webhook_deliveries WHERE state <> 'pending' AND created_at < ${before} ORDER BY created_at LIMIT ${limit})`;
}

/**
 * Hands claimed deliveries back unsent: due when they were, their attempt not counted (they stay
 * closed to later scans). One whose attempts changed since the claim (Retry now started them afresh)
 * is no longer this sender's to hand back, and is left as it is.
 */
export async function releaseClaims(deliveries: readonly ClaimedDelivery[]): Promise<void> {
  if (deliveries.length === 0) return;
  await db().$executeRaw`
    UPDATE webhook_deliveries d SET next_attempt_at = r.due_at, attempts = d.attempts - 1
    FROM unnest(
      ${deliveries.map((delivery) => delivery.id)}::bigint[],
      ${deliveries.map((delivery) => delivery.dueAt)}::timestamptz[],
      ${deliveries.map((delivery) => delivery.attempt)}::int[]
    ) AS r(id, due_at, attempt)
    WHERE d.id = r.id AND d.state = 'pending' AND d.attempts = r.attempt`;
}

export type AttemptRecord = {
  deliveryId: bigint;
  webhookId: string;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  at: Date;
};

/**
 * Writes an attempt to the log and its outcome to the delivery, together: delivered, due again
 * at `retryAt`, or failed for good (retryAt null after a failure).
 */
export async function recordAttempt(
  record: AttemptRecord,
  outcome: { delivered: true } | { delivered: false; retryAt: Date | null },
) {
  await transaction(async (tx) => {
    await insertAttempt(record, tx);
    const state = outcome.delivered ? "delivered" : outcome.retryAt ? "pending" : "failed";
    const nextAttemptAt = outcome.delivered ? null : outcome.retryAt;
    await tx.webhookDelivery.update({ where: { id: record.deliveryId }, data: { state, nextAttemptAt } });
  });
}

/** A delivery made on request (the test ping): written already sent, never retried. */
export async function insertSentDelivery(row: {
  webhookId: string;
  messageId: string;
  body: string;
  delivered: boolean;
  at: Date;
}): Promise<bigint> {
  const delivery = await db().webhookDelivery.create({
    data: {
      webhookId: row.webhookId,
      messageId: row.messageId,
      eventType: "ping",
      body: row.body,
      state: row.delivered ? "delivered" : "failed",
      attempts: 1,
      nextAttemptAt: null,
      createdAt: row.at,
    },
    select: { id: true },
  });
  return delivery.id;
}

export async function insertAttempt(record: AttemptRecord, client: DbClient = db()): Promise<void> {
  await client.webhookAttempt.create({
    data: {
      deliveryId: record.deliveryId,
      webhookId: record.webhookId,
      attempt: record.attempt,
      statusCode: record.statusCode,
      error: record.error,
      durationMs: record.durationMs,
      createdAt: record.at,
    },
  });
}

/**
 * Disables an endpoint after a message's last retry failed. One conditional UPDATE: of all the
 * senders that reach the end at once, only the one that flips disabled_at gets the row back and
 * tells the owners, so they are told once.
 */
export async function disableAfterFailure(webhookId: string, now: Date): Promise<boolean> {
  const { count } = await db().webhook.updateMany({
    where: { id: webhookId, disabledAt: null },
    data: { disabledAt: now, updatedAt: now },
  });
  return count === 1;
}

/**
 * Makes a message that was not delivered due now, its retries started afresh (attempts from 0, so a
 * failure is retried on the usual schedule rather than disabling the endpoint at once). The
 * message's state decides in the statement: a delivered one is left alone.
 */
export async function retryNow(webhookId: string, messageId: string, now: Date): Promise<"due" | "delivered" | "missing"> {
  const { count } = await db().webhookDelivery.updateMany({
    where: { webhookId, messageId, state: { not: "delivered" } },
    data: { state: "pending", attempts: 0, nextAttemptAt: now },
  });
  if (count > 0) return "due";
  return (await db().webhookDelivery.count({ where: { webhookId, messageId } })) > 0 ? "delivered" : "missing";
}

export type AttemptLogRow = {
  messageId: string;
  eventType: string;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  createdAt: Date;
  state: string;
  attempts: number;
  nextAttemptAt: Date | null;
};

/** The endpoint's most recent attempts, newest first, with their message's state now. */
export async function recentAttempts(webhookId: string, limit: number): Promise<AttemptLogRow[]> {
  return db().$queryRaw<AttemptLogRow[]>`
    SELECT d.message_id AS "messageId", d.event_type AS "eventType", a.attempt, a.status_code AS "statusCode", a.error,
      a.duration_ms AS "durationMs", a.created_at AS "createdAt", d.state, d.attempts, d.next_attempt_at AS "nextAttemptAt"
    FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
    WHERE a.webhook_id = ${webhookId}
    ORDER BY a.id DESC
    LIMIT ${limit}`;
}
