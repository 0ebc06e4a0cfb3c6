import { z } from "zod";
import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/client";
import { storedText } from "@/lib/http/schemas";
import { requirePermission } from "@/lib/workspaces/permissions";
import type { Principal } from "@/lib/workspaces/types";
import { shortUrl } from "./present";
import { ABUSE, ACTIVE, asLinkStatus, type LinkStatus, QUARANTINE } from "./status";

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

/** What the dashboard's links table asks for: a search, filters, the archived view and a page. */
export const browseLinksQuery = z.object({
  q: text().max(200, "must be at most 200 characters").optional().catch(undefined),
  status: z.enum(STATUS_FILTER_NAMES).optional().catch(undefined),
  /** "default" for the default short host, else a custom domain's hostname. */
  domain: text().max(253).optional().catch(undefined),
  view: z.enum(["live", "archived"]).default("live").catch("live"),
  /** A cursor this page did not write (edited, cut short) starts from the first page. */
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
};

/**
 * The workspace's links, most recent first, searched by slug or destination (case-insensitive)
 * and filtered by status, host and archived or not; keyset pagination on (created_at, id).
 */
export async function browseLinks(
  principal: Principal,
  query: BrowseLinksQuery,
): Promise<{ links: BrowsedLink[]; nextCursor: string | null }> {
  requirePermission(principal, "links.read", "Your role in this workspace does not allow listing links.");
  const after = query.cursor ? readCursor(query.cursor) : undefined;
  const where: Prisma.LinkWhereInput = {
    workspaceId: principal.workspaceId,
    archivedAt: query.view === "archived" ? { not: null } : null,
    ...(query.status && { status: STATUS_FILTERS[query.status] }),
    ...(query.domain && { host: query.domain === "default" ? null : query.domain }),
    ...(query.q && {
      OR: [{ slug: { contains: query.q, mode: "insensitive" } }, { destination: { contains: query.q, mode: "insensitive" } }],
    }),
  };
  const rows = await db().link.findMany({
    where: after
      ? { AND: [where, { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }] }
      : where,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: BROWSE_PAGE_SIZE + 1,
    select: { id: true, slug: true, host: true, destination: true, status: true, createdAt: true, archivedAt: true },
  });
  const page = rows.slice(0, BROWSE_PAGE_SIZE);
  const last = rows.length > BROWSE_PAGE_SIZE ? page.at(-1) : undefined;
  return {
    links: page.map((row) => ({ ...row, status: asLinkStatus(row.status), shortUrl: shortUrl(row) })),
    nextCursor: last ? Buffer.from(`${last.createdAt.getTime()}:${last.id}`).toString("base64url") : null,
  };
}

/** The hosts a workspace's links may live on, for the domain filter: the default short host and its custom domains. */
export async function linkHosts(principal: Principal): Promise<string[]> {
  const domains = await db().domain.findMany({
    where: { workspaceId: principal.workspaceId },
    orderBy: { hostname: "asc" },
    select: { hostname: true },
  });
  return domains.map((domain) => domain.hostname);
}

/** The position a cursor names; undefined (the first page) for one this page did not write: a page has no error answer but a 500. */
function readCursor(cursor: string): { createdAt: Date; id: string } | undefined {
  const [time, id] = Buffer.from(cursor, "base64url").toString().split(":");
  const createdAt = new Date(Number(time));
  if (!id || id.includes("\u0000") || Number.isNaN(createdAt.getTime())) return undefined;
  return { createdAt, id };
}

/** The custom domains a new link may use: the workspace's verified ones. */
export async function verifiedDomains(principal: Principal): Promise<{ id: string; hostname: string }[]> {
  return db().domain.findMany({
    where: { workspaceId: principal.workspaceId, verifiedAt: { not: null } },
    orderBy: { hostname: "asc" },
    select: { id: true, hostname: true },
  });
}
