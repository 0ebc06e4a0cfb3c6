import { clock } from "@/lib/clock";
import type { DbClient } from "@/lib/db/client";
import { newId } from "@/lib/db/random";
import { eventBody, type EventType } from "./events";
import { enqueueMessage, enqueueMessages } from "./store/deliveries";

/**
 * Announces an event to the workspace's webhooks, in the transaction of the change it announces:
 * the message is written to the outbox with that change or not at all, and sent later by the
 * delivery worker, never on the request's path. `data` is the resource as the API shows it.
 */
export async function announceEvent(client: DbClient, workspaceId: string, type: EventType, data: unknown): Promise<void> {
  await enqueueMessage(client, { workspaceId, type, messageId: newMessageId(), body: eventBody(type, clock().now(), data) });
}

/** announceEvent for many events of one change (each its own message), written in one statement. */
export async function announceEvents(
  client: DbClient,
  events: readonly { workspaceId: string; type: EventType; data: unknown }[],
): Promise<void> {
  const now = clock().now();
  await enqueueMessages(
    client,
    events.map(({ workspaceId, type, data }) => ({
      workspaceId,
      type,
      messageId: newMessageId(),
      body: eventBody(type, now, data),
    })),
  );
}

/** The webhook-id of a message: the same on every attempt, so receivers can deduplicate. */
export function newMessageId(): string {
  return newId("msg");
}

/** What link.scanned tells of one scan: what analytics records, never an address or a visitor's hash. */
export type ScanFacts = {
  linkId: string;
  occurredAt: Date;
  country: string | null;
  device: string | null;
  browser: string | null;
  os: string | null;
  referrerHost: string | null;
  viaQr: boolean;
  bot: boolean;
  /** The index of the routing rule whose destination served, null for the link's own. */
  servedRule?: number | null;
  /** Identical scans in the same millisecond, counted once (the scan buffer folds a visitor's repeats). */
  count: number;
};

/**
 * What a link.scanned body may hold, so messages stay within common receivers' body limits: a
 * link's scans past it go in further messages, and a later batch joins a waiting message only within it.
 */
export const MAX_SCAN_MESSAGE_BYTES = 256 * 1024;

export type ScanMessage = { linkId: string; messageId: string; body: string };

type ScanEntry = ReturnType<typeof scanEntry>;

/**
 * link.scanned messages for a batch: each link's scans in order, in as few messages as
 * MAX_SCAN_MESSAGE_BYTES allows (a busy link's batch is one message, not one a scan). Each body
 * ends with its scans' array and the two objects it closes (`]}}`), where enqueueScanMessages
 * appends a later batch's scans.
 */
export function scanMessages(scans: readonly ScanFacts[], now: number): ScanMessage[] {
  const byLink = new Map<string, ScanEntry[]>();
  for (const scan of scans) {
    const linkScans = byLink.get(scan.linkId);
    if (linkScans) linkScans.push(scanEntry(scan));
    else byLink.set(scan.linkId, [scanEntry(scan)]);
  }
  return [...byLink].flatMap(([linkId, entries]) => {
    const body = (part: readonly ScanEntry[]) => eventBody("link.scanned", now, { link_id: linkId, scans: part });
    return chunksWithin(entries, MAX_SCAN_MESSAGE_BYTES - Buffer.byteLength(body([]))).map((part) => ({
      linkId,
      messageId: newMessageId(),
      body: body(part),
    }));
  });
}

/** A scan as link.scanned tells it. */
function scanEntry(scan: ScanFacts) {
  return {
    occurred_at: scan.occurredAt.getTime(),
    country: scan.country,
    device: scan.device,
    browser: scan.browser,
    os: scan.os,
    referrer_host: scan.referrerHost,
    source: scan.viaQr ? "qr" : "link",
    bot: scan.bot,
    served_rule: scan.servedRule ?? null,
    count: scan.count,
  };
}

/** Entries in order, cut into runs whose JSON (commas included) stays within `bytes`; an entry is never cut. */
function chunksWithin(entries: readonly ScanEntry[], bytes: number): ScanEntry[][] {
  const chunks: ScanEntry[][] = [];
  let chunk: ScanEntry[] = [];
  let size = 0;
  for (const entry of entries) {
    const entryBytes = Buffer.byteLength(JSON.stringify(entry)) + 1;
    if (chunk.length > 0 && size + entryBytes > bytes) {
      chunks.push(chunk);
      chunk = [];
      size = 0;
    }
    chunk.push(entry);
    size += entryBytes;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}
