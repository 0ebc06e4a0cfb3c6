import type { DbClient } from "@/lib/db/client";
import { announceEvent } from "@/lib/webhooks/outbox";
import { toLinkView } from "./present";
import * as store from "./store";
import type { LinkRow } from "./store";

export type LinkEventType = "link.created" | "link.updated" | "link.archived" | "link.restored" | "link.status_changed";

/**
 * Writes the webhook message of a link change in the change's own transaction (`client`), with
 * the link as the API shows it after the change. announceLinkChange (changes.ts) then drops the
 * cached copies once the transaction has committed.
 */
export async function recordLinkEvent(client: DbClient, type: LinkEventType, link: LinkRow): Promise<void> {
  await announceEvent(client, link.workspaceId, type, toLinkView(link));
}

/** The same, for a change made by id (a status change by the safety checks or an operator). */
export async function recordLinkEventById(client: DbClient, type: LinkEventType, linkId: string): Promise<void> {
  await recordLinkEvent(client, type, await store.readLink(linkId, client));
}
