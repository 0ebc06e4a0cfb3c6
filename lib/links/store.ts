import { clock } from "@/lib/clock";
import { db, type DbClient, transaction } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { Prisma } from "@/lib/db/generated/client";
import { newId } from "@/lib/db/random";
import { keysetCursor, type Position } from "@/lib/http/cursor";
import type { RoutingRule, ScheduledRepoint } from "./routing";
import { ABUSE, type LinkStatus, quarantineEntry } from "./status";

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
  originalCreatedAt: true,
  rules: true,
  schedule: true,
  passwordHash: true,
  scanLimitAfter: true,
  scanLimitDestination: true,
  scanLimitCount: true,
  previewTitle: true,
  previewDescription: true,
  previewImage: true,
  previewCount: true,
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
  originalCreatedAt?: Date | null;
  archivedAt?: Date | null;
  passwordHash?: string | null;
  scanLimitAfter?: number | null;
  scanLimitDestination?: string | null;
  previewTitle?: string | null;
  previewDescription?: string | null;
  /** An imported code whose folded form another code of its host holds (ADR 0010). */
  caseTwin?: boolean;
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

/**
 * insertLink for many links in one statement (an import's batch): each row its own id and slug.
 * The rows a unique index refused (a slug taken, a case twin, a reusable twin) are absent from the answer.
 */
export async function insertLinks(links: readonly (NewLink & { id: string })[], client: DbClient): Promise<LinkRow[]> {
  if (links.length === 0) return [];
  const now = new Date(clock().now());
  const inserted = await client.link.createManyAndReturn({
    data: links.map((link) => ({ ...link, ...quarantineEntry(now), createdAt: now, updatedAt: now })),
    skipDuplicates: true,
    select: LINK_SCALARS,
  });
  return inserted.map((link) => ({ ...link, tags: [] }));
}

export async function readLink(id: string, client: DbClient = db()): Promise<LinkRow> {
  return client.link.findUniqueOrThrow({ where: { id }, select: LINK_COLUMNS });
}

/**
 * findReusableLink for many destinations of one workspace at once: the live reusable link of each
 * (host, destination) asked for, by `reusableKey`.
 */
export async function findReusableLinks(
  workspaceId: string,
  wanted: readonly { host: string | null; destination: string }[],
  client: DbClient,
): Promise<Map<string, LinkRow>> {
  if (wanted.length === 0) return new Map();
  // One probe of links_live_destination_key a destination. As `(host, destination) IN (…)` the planner
  // walked every live link of the workspace for each batch, a cost that grew with the import; the
  // LIMIT keeps the lateral subquery from being flattened into that join.
  const found = await client.$queryRaw<{ id: string }[]>`
    SELECT link.id
    FROM unnest(${wanted.map((link) => link.host ?? "")}::text[], ${wanted.map((link) => link.destination)}::text[])
      AS wanted (host, destination)
    CROSS JOIN LATERAL (
      SELECT id FROM links
      WHERE workspace_id = ${workspaceId} AND COALESCE(host, '') = wanted.host AND destination = wanted.destination
        AND reusable AND archived_at IS NULL AND password_hash IS NULL AND scan_limit_after IS NULL
      LIMIT 1
    ) AS link`;
  const links = await readLinks(
    client,
    found.map((row) => row.id),
  );
  return new Map(links.map((link) => [reusableKey(link), link]));
}

export const reusableKey = (link: { host: string | null; destination: string }) => `${link.host ?? ""} ${link.destination}`;

export async function findReusableLink(
  workspaceId: string,
  host: string | null,
  destination: string,
  client: DbClient = db(),
): Promise<LinkRow | null> {
  // The id first: Prisma reads a relation (the tags) even for no row, and most creates find none.
  const found = await client.link.findFirst({
    where: { workspaceId, host, destination, reusable: true, archivedAt: null, passwordHash: null, scanLimitAfter: null },
    select: { id: true },
  });
  return found ? readLink(found.id, client) : null;
}

/**
 * The code of `host` equal to `slug` ignoring case (ADR 0010): the exact one when it exists, else
 * the oldest other; null when none. Read through links_host_slug_fold_idx.
 */
export async function codeIgnoringCase(host: string | null, slug: string, client: DbClient = db()): Promise<string | null> {
  const rows = await client.$queryRaw<{ slug: string }[]>`
    SELECT slug FROM links WHERE COALESCE(host, '') = ${host ?? ""} AND lower(slug) = lower(${slug})
    ORDER BY slug = ${slug} DESC, created_at LIMIT 1`;
  return rows[0]?.slug ?? null;
}

export async function findWorkspaceLink(workspaceId: string, id: string): Promise<LinkRow | null> {
  return db().link.findFirst({ where: { id, workspaceId }, select: LINK_COLUMNS });
}

/** Where a page of links ends: the last link's (created_at, id), the key the pages are sorted by. */
export const linkCursor = keysetCursor({ createdAt: "time", id: "id" });
export type LinkPosition = Position<{ createdAt: "time"; id: "id" }>;

/** Which of a workspace's links a page holds: live or archived (both when unsaid), and only those carrying every one of `tagKeys`. */
export type LinkFilter = {
  archived?: boolean;
  tagKeys?: readonly string[];
};

/** Most recent first; keyset pagination on (created_at, id). */
export async function pageOfLinks(
  workspaceId: string,
  filter: LinkFilter,
  limit: number,
  after?: LinkPosition,
): Promise<LinkRow[]> {
  const where: Prisma.LinkWhereInput = {
    workspaceId,
    ...(filter.archived !== undefined && { archivedAt: filter.archived ? { not: null } : null }),
    AND: (filter.tagKeys ?? []).map((key) => ({ tags: { some: { tag: { nameKey: key } } } })),
  };
  return db().link.findMany({
    where: after
      ? { AND: [where, { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }] }
      : where,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    select: LINK_COLUMNS,
  });
}

/** The hostnames of a workspace's custom domains (only verified ones with `verifiedOnly`), by name, with their ids. */
export async function workspaceDomains(workspaceId: string, verifiedOnly: boolean): Promise<{ id: string; hostname: string }[]> {
  return db().domain.findMany({
    where: { workspaceId, ...(verifiedOnly && { verifiedAt: { not: null } }) },
    orderBy: { hostname: "asc" },
    select: { id: true, hostname: true },
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

/**
 * Replaces a link's routing rules (none: an empty list). New destinations are served, so the link
 * enters quarantine afresh as a repoint does; a link with rules is never reused by a create for its
 * destination, since not every visit goes there.
 */
export async function setRules(client: DbClient, id: string, rules: readonly RoutingRule[]): Promise<void> {
  const now = new Date(clock().now());
  await client.link.update({
    where: { id },
    data: { rules: rules.length > 0 ? rules : Prisma.DbNull, reusable: false, ...quarantineEntry(now), updatedAt: now },
  });
}

/** Replaces a link's scheduled repoints (in time order; none: an empty list). */
export async function setSchedule(client: DbClient, id: string, schedule: readonly ScheduledRepoint[]): Promise<void> {
  await client.link.update({
    where: { id },
    data: { schedule: schedule.length > 0 ? schedule : Prisma.DbNull, updatedAt: new Date(clock().now()) },
  });
}

/** Links whose first scheduled repoint is due at `now`, the longest due first (links_schedule_due_idx). */
export async function linksWithDueRepoints(now: number, limit: number): Promise<string[]> {
  const rows = await db().$queryRaw<{ id: string }[]>`
    SELECT id FROM links
    WHERE schedule IS NOT NULL AND (schedule->0->>'at')::bigint <= ${now}
    ORDER BY (schedule->0->>'at')::bigint, id
    LIMIT ${limit}`;
  return rows.map((row) => row.id);
}

/** The link, locked until the transaction ends: edits of it made meanwhile wait, so a fold never overwrites one. */
export async function readLinkForUpdate(client: DbClient, id: string): Promise<LinkRow> {
  const link = await findLinkForUpdate(client, id);
  if (!link) throw new Error(`No link has the id ${id}.`);
  return link;
}

/** The link, locked until its transaction ends (what a change reads as "before"); null when no link has this id. */
export async function findLinkForUpdate(client: DbClient, id: string): Promise<LinkRow | null> {
  const locked = await client.$queryRaw<{ id: string }[]>`SELECT id FROM links WHERE id = ${id} FOR UPDATE`;
  return locked.length === 0 ? null : readLink(id, client);
}

/**
 * The ids of every link carrying the tag, locked until the transaction ends (in id order, so two
 * changes of overlapping sets never wait on each other).
 */
export async function lockLinksTagged(client: DbClient, tagId: string): Promise<string[]> {
  const locked = await client.$queryRaw<{ id: string }[]>`
    SELECT l.id FROM links l JOIN link_tags lt ON lt.link_id = l.id
    WHERE lt.tag_id = ${tagId} ORDER BY l.id FOR UPDATE OF l`;
  return locked.map((row) => row.id);
}

/** The ids of the links carrying the tag now (committed), in id order, without locking them. */
export async function linksTagged(client: DbClient, tagId: string): Promise<string[]> {
  const rows = await client.$queryRaw<{ id: string }[]>`
    SELECT link_id AS id FROM link_tags WHERE tag_id = ${tagId} ORDER BY link_id`;
  return rows.map((row) => row.id);
}

/** Locks those of these links no other transaction holds, in id order, never waiting: the ids it locked. */
export async function lockFreeLinks(client: DbClient, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const locked = await client.$queryRaw<{ id: string }[]>`
    SELECT id FROM links WHERE id = ANY(${[...ids]}::text[]) ORDER BY id FOR UPDATE SKIP LOCKED`;
  return locked.map((row) => row.id);
}

/** These links as they are now, in id order (the set read at once, however many). */
export async function readLinks(client: DbClient, ids: readonly string[]): Promise<LinkRow[]> {
  if (ids.length === 0) return [];
  return client.link.findMany({ where: { id: { in: [...ids] } }, orderBy: { id: "asc" }, select: LINK_COLUMNS });
}

export async function setTitle(client: DbClient, id: string, title: string | null): Promise<void> {
  await client.link.update({ where: { id }, data: { title, updatedAt: new Date(clock().now()) } });
}

/** One row of a link's history, as linkChanged writes it in the change's transaction. */
export type NewHistoryRow = {
  linkId: string;
  workspaceId: string;
  change: string;
  via: string;
  actorKind: string;
  actorId: string | null;
  changed: string[];
  before: Prisma.InputJsonValue | null;
  after: Prisma.InputJsonValue;
};

/** The history rows of one change to one link or to many at once (a tag renamed or deleted): one statement. */
export async function appendHistory(client: DbClient, rows: readonly NewHistoryRow[]): Promise<void> {
  if (rows.length === 0) return;
  const occurredAt = new Date(clock().now());
  await client.linkHistory.createMany({
    data: rows.map((row) => ({ ...row, before: row.before ?? Prisma.DbNull, occurredAt })),
  });
}

export const historyCursor = keysetCursor({ id: "total" });
export type HistoryPosition = Position<{ id: "total" }>;

/** A history row with its actor resolved: the member's address, and for an app's change its connection's app and person. */
export type HistoryRow = Prisma.LinkHistoryGetPayload<object> & {
  actorEmail: string | null;
  actorUserId: string | null;
  actorApp: { clientId: string; name: string; grantId: string } | null;
};

/** Newest first, keyset-paginated on the row's id (its order of commit within a link); members' addresses joined. */
export async function pageOfHistory(linkId: string, limit: number, after?: HistoryPosition): Promise<HistoryRow[]> {
  const rows = await db().linkHistory.findMany({
    where: { linkId, ...(after && { id: { lt: BigInt(after.id) } }) },
    orderBy: { id: "desc" },
    take: limit,
  });
  return withActorEmails(rows);
}

/** How many history rows each of these links has (a link with none is absent). */
export async function historyCounts(linkIds: string[]): Promise<Map<string, number>> {
  const counts = await db().linkHistory.groupBy({ by: ["linkId"], where: { linkId: { in: linkIds } }, _count: { _all: true } });
  return new Map(counts.map((count) => [count.linkId, count._count._all]));
}

/** Every history row of these links, by link and newest first within one; `limit` and `before` page through one link's. */
export async function historyOfLinks(linkIds: string[], limit?: number, before?: bigint): Promise<HistoryRow[]> {
  const rows = await db().linkHistory.findMany({
    where: { linkId: { in: linkIds }, ...(before !== undefined && { id: { lt: before } }) },
    orderBy: [{ linkId: "asc" }, { id: "desc" }],
    ...(limit !== undefined && { take: limit }),
  });
  return withActorEmails(rows);
}

async function withActorEmails(rows: Prisma.LinkHistoryGetPayload<object>[]): Promise<HistoryRow[]> {
  const idsOf = (kind: string) => [
    ...new Set(rows.filter((row) => row.actorKind === kind && row.actorId).map((row) => row.actorId!)),
  ];
  const grantIds = idsOf("oauth_grant");
  const grants = grantIds.length
    ? await db().oAuthGrant.findMany({
        where: { id: { in: grantIds } },
        select: { id: true, userId: true, client: { select: { id: true, name: true } } },
      })
    : [];
  const grantsById = new Map(grants.map((grant) => [grant.id, grant]));
  const userIds = [...new Set([...idsOf("session"), ...grants.map((grant) => grant.userId)])];
  const users = userIds.length
    ? await db().user.findMany({ where: { id: { in: userIds } }, select: { id: true, email: true } })
    : [];
  const emails = new Map(users.map((user) => [user.id, user.email]));
  return rows.map((row) => {
    const grant = row.actorKind === "oauth_grant" ? grantsById.get(row.actorId ?? "") : undefined;
    const actorUserId = row.actorKind === "session" ? row.actorId : (grant?.userId ?? null);
    return {
      ...row,
      actorUserId,
      actorEmail: actorUserId ? (emails.get(actorUserId) ?? null) : null,
      actorApp: grant ? { clientId: grant.client.id, name: grant.client.name, grantId: grant.id } : null,
    };
  });
}

/**
 * Sets or removes the link's password hash. A protected link is never handed to a create as the
 * workspace's existing link to its destination, so setting one also ends its reuse.
 */
export async function setPasswordHash(client: DbClient, id: string, passwordHash: string | null): Promise<void> {
  await client.link.update({
    where: { id },
    data: { passwordHash, ...(passwordHash !== null && { reusable: false }), updatedAt: new Date(clock().now()) },
  });
}

/**
 * Sets the link's scan limit, counting from zero again, or removes it. A link with a limit is not
 * every create's link to its destination (it will leave it), so setting one also ends its reuse.
 */
export async function setScanLimit(
  client: DbClient,
  id: string,
  limit: { after: number; destination: string } | null,
): Promise<void> {
  await client.link.update({
    where: { id },
    data: {
      scanLimitAfter: limit?.after ?? null,
      scanLimitDestination: limit?.destination ?? null,
      scanLimitCount: 0,
      ...(limit !== null && { reusable: false }),
      updatedAt: new Date(clock().now()),
    },
  });
}

/**
 * Sets the preview's title and description (undefined keeps one) and, with `image` null, removes
 * its image (the stored bytes with it); `image` undefined keeps it.
 */
export async function setPreview(
  client: DbClient,
  id: string,
  preview: { title?: string | null; description?: string | null; image?: null },
): Promise<void> {
  await client.link.update({
    where: { id },
    data: {
      ...(preview.title !== undefined && { previewTitle: preview.title }),
      ...(preview.description !== undefined && { previewDescription: preview.description }),
      ...(preview.image === null && { previewImage: null }),
      updatedAt: new Date(clock().now()),
    },
  });
  if (preview.image === null) await client.linkPreviewImage.deleteMany({ where: { linkId: id } });
}

/** A preview image as stored: a re-encoded upload, with its digest. */
export type PreviewImage = { data: Buffer; contentType: string; width: number; height: number; sha256: string };

/** Stores the link's preview image (replacing any) and names it in the link's row, where visits read it. */
export async function savePreviewImage(client: DbClient, id: string, image: PreviewImage): Promise<void> {
  const now = new Date(clock().now());
  const row = {
    data: new Uint8Array(image.data),
    contentType: image.contentType,
    width: image.width,
    height: image.height,
    bytes: image.data.length,
    sha256: image.sha256,
    updatedAt: now,
  };
  await client.linkPreviewImage.upsert({ where: { linkId: id }, create: { linkId: id, ...row }, update: row });
  await client.link.update({ where: { id }, data: { previewImage: image.sha256, updatedAt: now } });
}

/** The preview image a link names now (its bytes only with `withData`); null when it has none. */
export async function readPreviewImage(
  id: string,
  withData: boolean,
): Promise<{ contentType: string; sha256: string; passwordProtected: boolean; blocked: boolean; data: Buffer | null } | null> {
  const row = await db().linkPreviewImage.findUnique({
    where: { linkId: id },
    select: {
      contentType: true,
      sha256: true,
      data: withData,
      link: { select: { previewImage: true, passwordHash: true, status: true } },
    },
  });
  if (!row || row.link.previewImage !== row.sha256) return null;
  return {
    contentType: row.contentType,
    sha256: row.sha256,
    passwordProtected: row.link.passwordHash !== null,
    blocked: row.link.status === ABUSE,
    data: withData && row.data ? Buffer.from(row.data) : null,
  };
}

/** What else an archive or restore writes in its transaction when it changed the link (its announcement). */
export type OnLinkChanged = (client: DbClient, link: LinkRow, before: LinkRow) => Promise<void>;

/** Archives once; archiving again keeps the first time and changes nothing (onChanged is not called). */
export async function archiveLink(id: string, onChanged: OnLinkChanged): Promise<LinkRow> {
  const now = new Date(clock().now());
  return transaction(async (tx) => {
    const before = await readLinkForUpdate(tx, id);
    if (before.archivedAt) return before;
    await tx.link.update({ where: { id }, data: { archivedAt: now, updatedAt: now } });
    const link = await readLink(id, tx);
    await onChanged(tx, link, before);
    return link;
  });
}

/**
 * Brings an archived link back to the list; restoring a live link changes nothing. The unique index
 * links_live_destination_key decides a race with a create: when another live link already answers
 * creates for this destination (one was made while this one was archived), this one comes back
 * without taking that role over (not reusable), so a create never finds two.
 */
export async function restoreLink(id: string, onChanged: OnLinkChanged): Promise<LinkRow> {
  const now = new Date(clock().now());
  // Each try is its own transaction: the unique violation aborts the one it happens in.
  const restore = (data: { reusable?: false }) =>
    transaction(async (tx) => {
      const before = await readLinkForUpdate(tx, id);
      if (!before.archivedAt) return before;
      await tx.link.update({ where: { id }, data: { ...data, archivedAt: null, updatedAt: now } });
      const link = await readLink(id, tx);
      await onChanged(tx, link, before);
      return link;
    });
  try {
    return await restore({});
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return restore({ reusable: false });
  }
}

export async function findWorkspaceDomain(workspaceId: string, domainId: string) {
  return db().domain.findFirst({
    where: { id: domainId, workspaceId },
    select: { id: true, hostname: true, verifiedAt: true },
  });
}

/** A row of the dashboard's links table: the link and its scans from the analytics capability's subquery. */
export type BrowseRow = {
  id: string;
  slug: string;
  host: string | null;
  destination: string;
  status: number;
  createdAt: Date;
  archivedAt: Date | null;
  title: string | null;
  /** The link's tags by name, each with its colour. */
  tags: { name: string; color: string }[];
  scans: bigint;
};

/** What the dashboard's links table narrows a workspace's links to; each field left out narrows nothing. */
export type BrowseFilter = {
  workspaceId: string;
  archived: boolean;
  status?: LinkStatus;
  /** A link's host; null for the default short host. */
  host?: string | null;
  /** A tag's name key: only links carrying it. */
  tagKey?: string;
  /** A substring of the slug, destination or title, case-insensitive, matched as typed (no wildcards). */
  search?: string;
};

/** A page of the table in one of its orders, after the position where the previous page ended (none: the first page). */
export type BrowsePage =
  | { order: "newest" | "oldest"; after: { createdAt: Date; id: string } | null }
  | { order: "scans"; after: { scans: number; id: string } | null };

const SCANS = Prisma.sql`coalesce(counts.scans, 0)`;

const BROWSE_ORDER: Record<BrowsePage["order"], Prisma.Sql> = {
  newest: Prisma.sql`l.created_at DESC, l.id DESC`,
  oldest: Prisma.sql`l.created_at ASC, l.id ASC`,
  scans: Prisma.sql`${SCANS} DESC, l.id DESC`,
};

/**
 * The dashboard's page of links, joined to `scanCounts` (a subquery of link_id, scans: the analytics
 * capability's numbers, shown and sorted by); keyset pagination on (created_at, id) or (scans, id).
 */
export async function browseRows(
  filter: BrowseFilter,
  page: BrowsePage,
  scanCounts: Prisma.Sql,
  limit: number,
): Promise<BrowseRow[]> {
  const after = keysetAfter(page);
  const conditions = [...browseConditions(filter), ...(after ? [after] : [])];
  return db().$queryRaw<BrowseRow[]>`
    SELECT l.id, l.slug, l.host, l.destination, l.status, l.created_at AS "createdAt", l.archived_at AS "archivedAt",
      l.title, ${SCANS}::bigint AS scans,
      coalesce((SELECT json_agg(json_build_object('name', t.name, 'color', t.color) ORDER BY t.name_key)
                FROM link_tags lt JOIN tags t ON t.id = lt.tag_id WHERE lt.link_id = l.id), '[]') AS tags
    FROM links l LEFT JOIN (${scanCounts}) counts ON counts.link_id = l.id
    WHERE ${Prisma.join(conditions, " AND ")}
    ORDER BY ${BROWSE_ORDER[page.order]}
    LIMIT ${limit}`;
}

function browseConditions(filter: BrowseFilter): Prisma.Sql[] {
  const conditions = [
    Prisma.sql`l.workspace_id = ${filter.workspaceId}`,
    filter.archived ? Prisma.sql`l.archived_at IS NOT NULL` : Prisma.sql`l.archived_at IS NULL`,
  ];
  if (filter.status !== undefined) conditions.push(Prisma.sql`l.status = ${filter.status}`);
  if (filter.host !== undefined)
    conditions.push(filter.host === null ? Prisma.sql`l.host IS NULL` : Prisma.sql`l.host = ${filter.host}`);
  if (filter.tagKey !== undefined)
    conditions.push(
      Prisma.sql`EXISTS (SELECT 1 FROM link_tags lt JOIN tags t ON t.id = lt.tag_id
                         WHERE lt.link_id = l.id AND t.name_key = ${filter.tagKey})`,
    );
  if (filter.search) {
    // The search is a substring, not a pattern: LIKE's wildcards and its escape character are matched as typed.
    const pattern = `%${filter.search.replace(/[\\%_]/g, "\\$&")}%`;
    conditions.push(Prisma.sql`(l.slug ILIKE ${pattern} OR l.destination ILIKE ${pattern} OR l.title ILIKE ${pattern})`);
  }
  return conditions;
}

/** After the previous page's last row: a row comparison, so ties on the key are broken by id exactly as ORDER BY breaks them. */
function keysetAfter(page: BrowsePage): Prisma.Sql | undefined {
  if (!page.after) return undefined;
  if (page.order === "scans") return Prisma.sql`(${SCANS}, l.id) < (${page.after.scans}::bigint, ${page.after.id})`;
  const at = page.after.createdAt.toISOString();
  return page.order === "newest"
    ? Prisma.sql`(l.created_at, l.id) < (${at}::timestamptz, ${page.after.id})`
    : Prisma.sql`(l.created_at, l.id) > (${at}::timestamptz, ${page.after.id})`;
}
