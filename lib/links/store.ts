import { clock } from "@/lib/clock";
import { db, type DbClient } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { newId } from "@/lib/db/random";
import { quarantineEntry } from "./status";

const LINK_SCALARS = {
  id: true,
  workspaceId: true,
  slug: true,
  host: true,
  destination: true,
  status: true,
  createdByUserId: true,
  createdAt: true,
  archivedAt: true,
  title: true,
  importedFrom: true,
} as const satisfies Prisma.LinkSelect;

export const LINK_COLUMNS = {
  ...LINK_SCALARS,
  tags: { select: { tag: { select: { name: true } } }, orderBy: { tag: { nameKey: "asc" } } },
} as const satisfies Prisma.LinkSelect;

/** A link as the account's operations read it (status is the stored integer; see asLinkStatus). */
export type LinkRow = Prisma.LinkGetPayload<{ select: typeof LINK_COLUMNS }>;

export type NewLink = {
  workspaceId: string;
  slug: string;
  reusable: boolean;
  host: string | null;
  domainId: string | null;
  destination: string;
  createdByUserId: string | null;
  title?: string | null;
  importedFrom?: string | null;
};

/**
 * Inserts a link; null when a unique index refused it (slug taken, or a reusable twin exists).
 * ON CONFLICT DO NOTHING (skipDuplicates) rather than a caught unique violation, because a
 * violation would abort the transaction a capped plan's create runs in.
 */
export async function insertLink(link: NewLink, client: DbClient = db()): Promise<LinkRow | null> {
  const now = new Date(clock().now());
  const [inserted] = await client.link.createManyAndReturn({
    data: [{ id: newId("lnk"), ...link, ...quarantineEntry(now), createdAt: now, updatedAt: now }],
    skipDuplicates: true,
    select: LINK_SCALARS,
  });
  return inserted ? { ...inserted, tags: [] } : null;
}

export async function readLink(id: string, client: DbClient = db()): Promise<LinkRow> {
  return client.link.findUniqueOrThrow({ where: { id }, select: LINK_COLUMNS });
}

export async function findReusableLink(
  workspaceId: string,
  host: string | null,
  destination: string,
  client: DbClient = db(),
): Promise<LinkRow | null> {
  return client.link.findFirst({
    where: { workspaceId, host, destination, reusable: true, archivedAt: null },
    select: LINK_COLUMNS,
  });
}

export async function isSlugTaken(host: string | null, slug: string): Promise<boolean> {
  return (await db().link.count({ where: { host, slug } })) > 0;
}

export async function findWorkspaceLink(workspaceId: string, id: string): Promise<LinkRow | null> {
  return db().link.findFirst({ where: { id, workspaceId }, select: LINK_COLUMNS });
}

/** Every link of the workspace, archived ones included, most recent first, a page at a time (keyset on created_at, id). */
export async function pageOfAllLinks(
  workspaceId: string,
  limit: number,
  after?: { createdAt: Date; id: string },
): Promise<LinkRow[]> {
  return db().link.findMany({
    where: {
      workspaceId,
      ...(after && { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    select: LINK_COLUMNS,
  });
}

/** Most recent first; keyset pagination on (created_at, id); with tags, only links carrying every one of them. */
export async function listLiveLinks(
  workspaceId: string,
  limit: number,
  after?: { createdAt: Date; id: string },
  tagKeys: readonly string[] = [],
): Promise<LinkRow[]> {
  return db().link.findMany({
    where: {
      workspaceId,
      archivedAt: null,
      ...(after && { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }),
      AND: tagKeys.map((key) => ({ tags: { some: { tag: { nameKey: key } } } })),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    select: LINK_COLUMNS,
  });
}

/**
 * Points a link at a new destination. A repointed link is no longer reused for its old
 * destination, and enters quarantine afresh so the new destination earns its release.
 */
export async function repointLink(client: DbClient, id: string, destination: string): Promise<void> {
  const now = new Date(clock().now());
  await client.link.update({ where: { id }, data: { destination, reusable: false, ...quarantineEntry(now), updatedAt: now } });
}

export async function setTitle(client: DbClient, id: string, title: string | null): Promise<void> {
  await client.link.update({ where: { id }, data: { title, updatedAt: new Date(clock().now()) } });
}

/** Archives once; archiving again keeps the first time. */
export async function archiveLink(id: string): Promise<LinkRow> {
  const now = new Date(clock().now());
  await db().link.updateMany({ where: { id, archivedAt: null }, data: { archivedAt: now, updatedAt: now } });
  return db().link.findUniqueOrThrow({ where: { id }, select: LINK_COLUMNS });
}

/**
 * Brings an archived link back to the list; restoring a live link changes nothing. The unique index
 * links_live_destination_key decides a race with a create: when another live link already answers
 * creates for this destination (one was made while this one was archived), this one comes back
 * without taking that role over (not reusable), so a create never finds two.
 */
export async function restoreLink(id: string): Promise<LinkRow> {
  const now = new Date(clock().now());
  const restore = (data: { reusable?: false }) =>
    db().link.updateMany({ where: { id, archivedAt: { not: null } }, data: { ...data, archivedAt: null, updatedAt: now } });
  try {
    await restore({});
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    await restore({ reusable: false });
  }
  return db().link.findUniqueOrThrow({ where: { id }, select: LINK_COLUMNS });
}

export async function findWorkspaceDomain(workspaceId: string, domainId: string) {
  return db().domain.findFirst({
    where: { id: domainId, workspaceId },
    select: { id: true, hostname: true, verifiedAt: true },
  });
}
