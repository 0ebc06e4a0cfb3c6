import { clock } from "@/lib/clock";
import { config } from "@/lib/config";
import { destinationNow } from "./destinations";
import { previewOf } from "./preview";
import { pendingRepoints, storedRules, storedSchedule } from "./routing";
import type { LinkListItem, LinkView } from "./schemas";
import { codePath } from "./slugs";
import { asLinkStatus } from "./status";
import type { LinkRow } from "./store";

export function shortUrl(link: Pick<LinkRow, "host" | "slug">): string {
  const base = link.host ? `https://${link.host}` : config().SHORT_BASE_URL;
  return `${base}${codePath(link.slug)}`;
}

/** The link as the API shows it at this moment: a scheduled repoint whose time has come is its destination (unless it is blocked). */
export function toLinkView(link: LinkRow): LinkView {
  const now = clock().now();
  const schedule = storedSchedule(link.schedule);
  return {
    id: link.id,
    slug: link.slug,
    destination: destinationNow({ ...link, schedule }, now),
    host: link.host,
    status: asLinkStatus(link.status),
    short_url: shortUrl(link),
    created_at: link.createdAt.getTime(),
    archived_at: link.archivedAt?.getTime() ?? null,
    title: link.title,
    tags: tagNamesOf(link),
    imported_from: link.importedFrom,
    original_created_at: link.originalCreatedAt?.getTime() ?? null,
    rules: storedRules(link.rules),
    schedule: pendingRepoints(schedule, now),
    scan_limit:
      link.scanLimitAfter !== null && link.scanLimitDestination !== null
        ? { after: link.scanLimitAfter, destination: link.scanLimitDestination, scans: link.scanLimitCount }
        : null,
    password_protected: link.passwordHash !== null,
    preview: previewOf(link),
    preview_count: link.previewCount,
  };
}

export function toListItem(link: LinkRow): LinkListItem {
  return {
    id: link.id,
    slug: link.slug,
    destination: link.destination,
    status: link.status,
    created_at: link.createdAt.getTime(),
    host: link.host,
    title: link.title,
    tags: tagNamesOf(link),
  };
}

export function tagNamesOf(link: Pick<LinkRow, "tags">): string[] {
  return link.tags.map(({ tag }) => tag.name);
}
