import { config } from "@/lib/config";
import { log } from "@/lib/log";
import { natsConnection, usableNatsConnection } from "@/lib/nats/connection";
import { processSingleton } from "@/lib/process-singleton";
import {
  AckPolicy,
  DiscardPolicy,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type ConsumerMessages,
  type JsMsg,
} from "@nats-io/jetstream";
import { headers, nanos, type NatsConnection } from "@nats-io/transport-node";
import type { ScanRow } from "./enrich";
import { InvalidScanMessage, scanMessageFromText, scanMessageText, type ScanMessage } from "./scan-message";
import { writeScanBatch } from "./store/append";

/**
 * Scans through NATS JetStream (with NATS_URL): each instance publishes its enriched scans (never an
 * address: rows carry the visitor's hash) to a work-queue stream on disk, and a durable consumer
 * shared by every instance writes them to PostgreSQL with the same claimed-batch statement as the
 * direct path, acknowledging only after the commit. A database outage then costs a wait, not a scan.
 *
 * A batch is cut into messages of at most ROWS_PER_MESSAGE rows, each with an id derived from the
 * batch's (`<batch>.<n>`): JetStream drops a message whose id it saw within DUPLICATE_WINDOW_MS, and
 * the writer claims the same id in scan_batches, so a republished or redelivered message, or one
 * written directly while NATS was failing, is counted once.
 */

/** ~700 bytes a row at most (a 512-character user agent): well under NATS's default 1 MB payload. */
const ROWS_PER_MESSAGE = 500;
const PUBLISH_TIMEOUT_MS = 2_000;
const DUPLICATE_WINDOW_MS = 2 * 60_000;
/**
 * A message not acknowledged within this long goes to another instance: what a killed instance held
 * is written by the others seconds later. A write under way says so every WORKING_EVERY_MS, so a slow
 * one keeps its message (the claim would keep a second write exact anyway).
 */
const ACK_WAIT_MS = 10_000;
const WORKING_EVERY_MS = 3_000;
/**
 * A write that failed (PostgreSQL away) is offered again after RETRY_AFTER_MS for its first
 * FAST_RETRIES deliveries (an outage of up to five minutes is caught up a second after it ends),
 * then every SLOW_RETRY_AFTER_MS; after NATS_SCAN_MAX_DELIVERIES deliveries (400: about an hour) it
 * goes to the dead-letter stream instead, so no message is offered forever.
 */
const RETRY_AFTER_MS = 1_000;
const FAST_RETRIES = 300;
const SLOW_RETRY_AFTER_MS = 30_000;
const CONSUMER_NAME = "scan-writer";
/** The dead-letter stream may hold this fraction of the scan stream's bytes: it keeps the rare message given up on. */
const DEAD_LETTER_SHARE = 16;
/**
 * How long a pull request waits on the server. A pull held by a NATS node that died (the consumer's
 * leader moves to another node) is noticed after two missed heartbeats, half this each: the
 * client's default, 30 s, left every instance's writer idle for half a minute after a node was lost.
 */
const PULL_EXPIRES_MS = 5_000;
const MESSAGES_IN_FLIGHT = 8;

const subject = () => `permalink.scans.${config().NATS_SCAN_STREAM}`;
/** Where messages the writers gave up on are kept, whole, for an operator to look at or publish again (docs/operations.md). */
export const deadLetterStream = () => `${config().NATS_SCAN_STREAM}_DEAD`;
const deadLetterSubject = () => `permalink.scans-dead.${config().NATS_SCAN_STREAM}`;

/** Cuts a batch into messages whose ids depend only on the batch's id and order, so a retried batch reuses them. */
export function scanMessages(batchId: string, rows: ScanRow[], counts: number[]): ScanMessage[] {
  const messages: ScanMessage[] = [];
  for (let from = 0; from < rows.length; from += ROWS_PER_MESSAGE) {
    const to = from + ROWS_PER_MESSAGE;
    messages.push({ id: `${batchId}.${from / ROWS_PER_MESSAGE}`, rows: rows.slice(from, to), counts: counts.slice(from, to) });
  }
  return messages;
}

/** Creates the stream and the shared consumer once per connection; idempotent across instances. */
const processStreamReady = processSingleton("analytics.scan-stream-ready", () => new WeakMap<NatsConnection, Promise<void>>());

function streamReady(connection: NatsConnection): Promise<void> {
  const ready = processStreamReady.get();
  let setUp = ready.get(connection);
  if (!setUp) {
    setUp = createStream(connection);
    setUp.catch(() => ready.delete(connection));
    ready.set(connection, setUp);
  }
  return setUp;
}

async function createStream(connection: NatsConnection): Promise<void> {
  const { NATS_SCAN_STREAM: name, NATS_SCAN_STREAM_MAX_BYTES: maxBytes, NATS_SCAN_STREAM_REPLICAS: replicas } = config();
  const manager = await jetstreamManager(connection);
  const stream = {
    name,
    subjects: [subject()],
    // Each message to one consumer, removed once acknowledged: the stream holds only what is not yet in PostgreSQL.
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    num_replicas: replicas,
    max_bytes: maxBytes,
    // When full, a publish is refused (and the instance writes to PostgreSQL itself) rather than losing stored scans.
    discard: DiscardPolicy.New,
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
  };
  await manager.streams.add(stream).catch(async (error: unknown) => {
    if (!String(error).includes("already in use")) throw error;
    await manager.streams.update(name, {
      max_bytes: maxBytes,
      num_replicas: replicas,
      duplicate_window: stream.duplicate_window,
    });
  });
  const consumer = {
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(ACK_WAIT_MS),
    filter_subject: subject(),
    max_deliver: config().NATS_SCAN_MAX_DELIVERIES,
  };
  // A server before 2.10 updates an existing durable on add; a later one refuses a changed config.
  await manager.consumers.add(name, { durable_name: CONSUMER_NAME, ...consumer }).catch(async (error: unknown) => {
    if (!String(error).includes("already exists")) throw error;
    await manager.consumers.update(name, CONSUMER_NAME, { ack_wait: consumer.ack_wait, max_deliver: consumer.max_deliver });
  });
  const deadLetters = {
    name: deadLetterStream(),
    subjects: [deadLetterSubject()],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    num_replicas: replicas,
    max_bytes: Math.ceil(maxBytes / DEAD_LETTER_SHARE),
    discard: DiscardPolicy.New,
  };
  // Without it (an account whose JetStream limits leave no room) scans still flow: a message given
  // up on then stays in the scan stream, delivered no more.
  await manager.streams.add(deadLetters).catch((error: unknown) => {
    if (!String(error).includes("already in use"))
      log().warn({ err: error, stream: deadLetters.name }, "The scan stream's dead-letter stream could not be created");
  });
}

/**
 * Sends a batch's scans to the stream, or writes them to PostgreSQL itself when NATS is not there
 * or refuses (each message under its own id, so one that did reach the stream is still counted once).
 * Rejects only when neither took them: the buffer keeps the batch and retries it whole.
 */
export async function recordScanRows(batchId: string, rows: ScanRow[], counts: number[]): Promise<void> {
  const messages = scanMessages(batchId, rows, counts);
  const unsent = await publish(messages);
  for (const message of unsent) await writeScanBatch(message.id, message.rows, message.counts);
}

/** Publishes each message; resolves to those the stream did not acknowledge. */
async function publish(messages: ScanMessage[]): Promise<ScanMessage[]> {
  const connection = await usableNatsConnection(PUBLISH_TIMEOUT_MS);
  if (!connection) return messages;
  try {
    await streamReady(connection);
  } catch (error) {
    publishFailed(error);
    return messages;
  }
  const client = jetstream(connection, { timeout: PUBLISH_TIMEOUT_MS });
  const outcomes = await Promise.allSettled(
    messages.map((message) =>
      client.publish(subject(), new TextEncoder().encode(scanMessageText(message)), {
        msgID: message.id,
        timeout: PUBLISH_TIMEOUT_MS,
      }),
    ),
  );
  const failure = outcomes.find((outcome) => outcome.status === "rejected");
  if (failure) publishFailed(failure.reason);
  else processPublishing.get().failing = false;
  return messages.filter((_, index) => outcomes[index]!.status === "rejected");
}

/** Whether this process's last publish failed: the failure is logged once per spell. */
const processPublishing = processSingleton("analytics.scan-stream-publishing", () => ({ failing: false }));

function publishFailed(error: unknown): void {
  const publishing = processPublishing.get();
  if (publishing.failing) return;
  publishing.failing = true;
  log().warn({ err: error }, "NATS did not take scans; this instance writes them to PostgreSQL directly until it does");
}

export type ScanStreamWriter = { stop(): Promise<void> };

/** Messages this process's writer dropped as not scans (refused) or handed to the dead-letter stream. */
const processStreamTally = processSingleton("analytics.scan-stream-tally", () => ({ refused: 0, deadLettered: 0 }));

export function scanStreamTally(): Readonly<{ refused: number; deadLettered: number }> {
  return processStreamTally.get();
}

/**
 * A message no instance of this service wrote (malformed, out of range, forged) is terminated at
 * once: never written, never offered again, logged once with where it came from.
 */
function refused(message: JsMsg, error: unknown): void {
  message.term();
  const tally = processStreamTally.get();
  tally.refused++;
  log().error(
    {
      subject: message.subject,
      sequence: message.seq,
      reason: error instanceof InvalidScanMessage ? error.message : String(error),
      refusedSinceStart: tally.refused,
    },
    "A message on the scan stream is not a scan batch this service wrote; it is dropped",
  );
}

/** Offered again later, or, at its last delivery, kept whole in the dead-letter stream and taken out of the scan stream. */
async function writeFailed(message: JsMsg, error: unknown): Promise<void> {
  const deliveries = message.info.deliveryCount;
  if (deliveries < config().NATS_SCAN_MAX_DELIVERIES) {
    message.nak(deliveries < FAST_RETRIES ? RETRY_AFTER_MS : SLOW_RETRY_AFTER_MS);
    return;
  }
  try {
    const connection = (await natsConnection())!;
    const facts = headers();
    facts.set("Permalink-Subject", message.subject);
    facts.set("Permalink-Sequence", String(message.seq));
    facts.set("Permalink-Deliveries", String(deliveries));
    await jetstream(connection, { timeout: PUBLISH_TIMEOUT_MS }).publish(deadLetterSubject(), message.data, {
      headers: facts,
      msgID: `${message.info.stream}.${message.seq}`,
    });
  } catch (deadLetterError) {
    // It stays in the scan stream, delivered no more (max_deliver): `nats stream view` still shows it.
    log().error({ err: deadLetterError, sequence: message.seq }, "A scan message given up on could not be dead-lettered");
    message.nak(SLOW_RETRY_AFTER_MS);
    return;
  }
  message.term();
  const tally = processStreamTally.get();
  tally.deadLettered++;
  log().error(
    { err: error, subject: message.subject, sequence: message.seq, deliveries, deadLetterStream: deadLetterStream() },
    "A scan message could not be written after its last delivery; it is kept in the dead-letter stream",
  );
}

/**
 * The shared consumer's loop in this process: each message written by the batch statement, then
 * acknowledged. A failed write is offered again (to any instance) after RETRY_AFTER_MS; the loop
 * resubscribes after a lost connection.
 */
export function startScanStreamWriter(): ScanStreamWriter {
  let stopped = false;
  let messages: ConsumerMessages | null = null;
  let handling: Promise<void> = Promise.resolve();
  let writeFailing = false;

  async function handle(message: JsMsg): Promise<void> {
    let batch: ScanMessage;
    try {
      batch = scanMessageFromText(new TextDecoder().decode(message.data));
    } catch (error) {
      refused(message, error);
      return;
    }
    // The ack wait ran from delivery, and the message may have waited its turn behind the others pulled with it.
    message.working();
    const working = setInterval(() => message.working(), WORKING_EVERY_MS);
    try {
      await writeScanBatch(batch.id, batch.rows, batch.counts);
    } catch (error) {
      if (!writeFailing)
        log().error({ err: error }, "Writing scans from the stream failed; they stay in the stream and are retried");
      writeFailing = true;
      await writeFailed(message, error);
      return;
    } finally {
      clearInterval(working);
    }
    if (writeFailing) log().info("Scans from the stream are being written again");
    writeFailing = false;
    // After the commit: a lost acknowledgement means a redelivery, which the claimed id writes as nothing.
    await message.ackAck().catch(() => undefined);
  }

  async function run(): Promise<void> {
    while (!stopped) {
      try {
        const connection = await natsConnection();
        if (!connection) return;
        await streamReady(connection);
        const consumer = await jetstream(connection).consumers.get(config().NATS_SCAN_STREAM, CONSUMER_NAME);
        messages = await consumer.consume({ max_messages: MESSAGES_IN_FLIGHT, expires: PULL_EXPIRES_MS });
        for await (const message of messages) {
          handling = handle(message);
          await handling;
          if (stopped) break;
        }
      } catch (error) {
        if (!stopped) log().warn({ err: error }, "The scan stream's consumer lost NATS; it tries again in a second");
      }
      if (!stopped) await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_MS));
    }
  }

  void run();
  return {
    async stop() {
      stopped = true;
      await handling;
      await messages?.close().catch(() => undefined);
    },
  };
}
