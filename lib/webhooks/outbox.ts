import { clock } from "@/lib/clock";
import type { DbClient } from "@/lib/db/client";
import { newId } from "@/lib/db/random";
import { eventBody, type EventType } from "./events";
import { enqueueMessage } from "./store";

/**
 * Announces an event to the workspace's webhooks, in the transaction of the change it announces:
 * the message is written to the outbox with that change or not at all, and sent later by the
 * delivery worker, never on the request's path. `data` is the resource as the API shows it.
 */
export async function announceEvent(client: DbClient, workspaceId: string, type: EventType, data: unknown): Promise<void> {
  await enqueueMessage(client, { workspaceId, type, messageId: newMessageId(), body: eventBody(type, clock().now(), data) });
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

/** One link.scanned message per link, its scans in order (coalesced: a busy link's batch is one message). */
export function scanMessages(scans: readonly ScanFacts[], now: number): { linkId: string; messageId: string; body: string }[] {
  const byLink = new Map<string, ScanFacts[]>();
  for (const scan of scans) {
    const linkScans = byLink.get(scan.linkId);
    if (linkScans) linkScans.push(scan);
    else byLink.set(scan.linkId, [scan]);
  }
  return [...byLink].map(([linkId, linkScans]) => ({
    linkId,
    messageId: newMessageId(),
    body: eventBody("link.scanned", now, {
      link_id: linkId,
      scans: linkScans.map((scan) => ({
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
      })),
    }),
  }));
}
