import type { Prisma } from "@/lib/db/generated/client";
import { keysetCursor } from "@/lib/http/cursor";
import { storedText } from "@/lib/http/schemas";
import { nameKey } from "@/lib/tags/store";
import { requirePermission } from "@/lib/workspaces/permissions";
import type { Principal } from "@/lib/workspaces/types";
import { z } from "zod";
import { shortUrl } from "./present";
import { ABUSE, ACTIVE, asLinkStatus, type LinkStatus, QUARANTINE } from "./status";
import { type BrowseFilter, type BrowsePage, browseRows, workspaceDomains } from "./store";

/** Rows per page of the dashboard's table; the cursor pages through any number of links. */
export const BROWSE_PAGE_SIZE = 50;

/** The statuses the links table filters by, by the name the address bar and the filter's options use. */
export const STATUS_FILTERS = { active: ACTIVE, quarantine: QUARANTINE, abuse: ABUSE } as const satisfies Record<
  string,
  LinkStatus
>;
export const STATUS_FILTER_NAMES = Object.keys(STATUS_FILTERS) as [
  keyof typeof STATUS_FILTERS,
  ...(keyof typeof STATUS_FILTERS)[],
];

/** The orders of the links table: newest or oldest first by creation, or most scans first. */
export const LINK_SORTS = ["newest", "oldest", "scans"] as const satisfies readonly BrowsePage["order"][];
export type LinkSort = (typeof LINK_SORTS)[number];

/** What the dashboard's links table asks for: a search, filters, the archived view, an order and a page. */
export const browseLinksQuery = z.object({
  q: text().max(200, "must be at most 200 characters").optional().catch(undefined),
  status: z.enum(STATUS_FILTER_NAMES).optional().catch(undefined),
  /** "default" for the default short host, else a custom domain's hostname. */
  domain: text().max(253).optional().catch(undefined),
  /** A tag's name: only links carrying it. */
  tag: text().max(40).optional().catch(undefined),
  view: z.enum(["live", "archived"]).default("live").catch("live"),
  sort: z.enum(LINK_SORTS).default("newest").catch("newest"),
  /** A cursor this page did not write (edited, cut short, or of another order) starts from the first page. */
  cursor: text().max(200).optional().catch(undefined),
});

/** Text from the address bar without control characters (PostgreSQL's text cannot hold NUL); anything else is ignored like a bad value. */
function text() {
  return storedText(z.string().trim());
}

export type BrowseLinksQuery = z.infer<typeof browseLinksQuery>;

export type BrowsedLink = {
  id: string;
  slug: string;
  host: string | null;
  shortUrl: string;
  destination: string;
  status: LinkStatus;
  createdAt: Date;
  archivedAt: Date | null;
  title: string | null;
  tags: { name: string; color: string }[];
  /** Scans counted by `scanCounts` (the analytics capability's subquery); 0 for a link it does not list. */
  scans: number;
};

/**
 * The workspace's links, searched by slug, destination or title (case-insensitive) and filtered by
 * status, host, tag and archived or not, in the asked order; keyset pagination on (created_at, id) or
 * (scans, id). `scanCounts` is a subquery of (link_id, scans) from the analytics capability: the
 * numbers shown and sorted by. A link's scans may change between two pages; the cursor holds the
 * position, so the next page still starts after it, never at an offset that shifted.
 */
export async function browseLinks(
  principal: Principal,
  query: BrowseLinksQuery,
  scanCounts: Prisma.Sql,
): Promise<{ links: BrowsedLink[]; nextCursor: string | null }> {
  requirePermission(principal, "links.read", "Your role in this workspace does not allow listing links.");
  const rows = await browseRows(filterOf(principal, query), pageOf(query), scanCounts, BROWSE_PAGE_SIZE + 1);
  const page = rows.slice(0, BROWSE_PAGE_SIZE).map((row) => ({
    ...row,
    status: asLinkStatus(row.status),
    scans: Number(row.scans),
    shortUrl: shortUrl(row),
  }));
  const last = rows.length > BROWSE_PAGE_SIZE ? page.at(-1) : undefined;
  return { links: page, nextCursor: last ? writeCursor(query.sort, last) : null };
}

function filterOf(principal: Principal, query: BrowseLinksQuery): BrowseFilter {
  return {
    workspaceId: principal.workspaceId,
    archived: query.view === "archived",
    ...(query.status && { status: STATUS_FILTERS[query.status] }),
    ...(query.domain && { host: query.domain === "default" ? null : query.domain }),
    ...(query.tag && { tagKey: nameKey(query.tag) }),
    ...(query.q && { search: query.q }),
  };
}

/** Where a page ends, in each order: its last row's key (creation time, or scans) and its id, which breaks ties. */
const CURSORS = {
  newest: keysetCursor({ createdAt: "time", id: "id" }, "newest"),
  oldest: keysetCursor({ createdAt: "time", id: "id" }, "oldest"),
  scans: keysetCursor({ scans: "total", id: "id" }, "scans"),
};

/**
 * The page the query asks for. A cursor this page did not write, or of another order, is none (the first page):
 * a page has no error answer but a 500.
 */
function pageOf({ sort, cursor }: BrowseLinksQuery): BrowsePage {
  if (sort === "scans") return { order: sort, after: cursor ? CURSORS.scans.decode(cursor) : null };
  return { order: sort, after: cursor ? CURSORS[sort].decode(cursor) : null };
}

function writeCursor(sort: LinkSort, last: BrowsedLink): string {
  return sort === "scans" ? CURSORS.scans.encode(last) : CURSORS[sort].encode(last);
}

/** The hosts a workspace's links may live on, for the domain filter: the default short host and its custom domains. */
export async function linkHosts(principal: Principal): Promise<string[]> {
  const domains = await workspaceDomains(principal.workspaceId, false);
  return domains.map((domain) => domain.hostname);
}

/** The custom domains a new link may use: the workspace's verified ones. */
export async function verifiedDomains(principal: Principal): Promise<{ id: string; hostname: string }[]> {
  return workspaceDomains(principal.workspaceId, true);
}
