import { log } from "@/lib/log";
import { publishInvalidation } from "./invalidation";

/**
 * What happened to a link: made, pointed elsewhere, retitled or retagged (edited), archived or
 * restored, or moved between active, quarantine and abuse.
 */
export type LinkChangeKind = "created" | "repointed" | "edited" | "archived" | "restored" | "status_changed";

/** The link as it is after the change. */
export type ChangedLink = { id: string; host: string | null; slug: string; status: number };

/**
 * The one place every change to a link is announced, after it has committed: each instance drops
 * its cached copy at once (across instances through Redis), so a change is seen on the next visit
 * everywhere. A path that changes a link and skips this serves a stale copy for up to a minute.
 */
export function announceLinkChange(change: LinkChangeKind, link: ChangedLink): void {
  log().debug({ linkId: link.id, change, status: link.status }, "link changed");
  publishInvalidation({ kind: "link", host: link.host, slug: link.slug });
}
