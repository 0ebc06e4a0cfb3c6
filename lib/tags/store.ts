import { db, type DbClient } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { newId } from "@/lib/db/random";
import { DomainError } from "@/lib/http/errors";

const TAG_COLUMNS = { id: true, name: true, color: true } as const;

export type TagRow = { id: string; name: string; color: string };

/** What names are compared by: the same tag whatever its case. */
export function nameKey(name: string): string {
  return name.normalize("NFC").toLowerCase();
}

export async function listTags(workspaceId: string): Promise<TagRow[]> {
  return db().tag.findMany({ where: { workspaceId }, orderBy: { nameKey: "asc" }, select: TAG_COLUMNS });
}

export async function findTag(workspaceId: string, id: string): Promise<TagRow | null> {
  return db().tag.findFirst({ where: { id, workspaceId }, select: TAG_COLUMNS });
}

/** Null when the workspace already has a tag of this name (the unique index decides, not a prior read). */
export async function insertTag(workspaceId: string, name: string, color: string): Promise<TagRow | null> {
  const [inserted] = await db().tag.createManyAndReturn({
    data: [{ id: newId("tag"), workspaceId, name, nameKey: nameKey(name), color }],
    skipDuplicates: true,
    select: TAG_COLUMNS,
  });
  return inserted ?? null;
}

/** "taken" when another tag of the workspace already has the new name (the index decides); null when the tag is gone. */
export async function updateTag(
  id: string,
  changes: { name?: string; color?: string },
  client: DbClient = db(),
): Promise<TagRow | "taken" | null> {
  try {
    return await client.tag.update({
      where: { id },
      data: { ...changes, ...(changes.name !== undefined && { nameKey: nameKey(changes.name) }) },
      select: TAG_COLUMNS,
    });
  } catch (error) {
    if (isUniqueViolation(error)) return "taken";
    if (isRecordNotFound(error)) return null;
    throw error;
  }
}

/** Prisma's "no record found" for an update of a row deleted meanwhile. */
function isRecordNotFound(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2025";
}

/** The tag leaves every link it was on (link_tags cascade); the links stay. False when it was already gone (a concurrent delete). */
export async function deleteTag(id: string, client: DbClient = db()): Promise<boolean> {
  return (await client.tag.deleteMany({ where: { id } })).count > 0;
}

/**
 * Locks the tag for a rename or delete (lib/links/tag-changes.ts) and reads it as it is; null when it is gone.
 * FOR UPDATE: ensureTags holds each tag it hands out FOR SHARE until its transaction commits, so this
 * waits for every link being given the tag at this moment, and every one given it later waits for this.
 */
export async function lockTag(client: DbClient, id: string): Promise<TagRow | null> {
  const [tag] = await client.$queryRaw<TagRow[]>`SELECT id, name, color FROM tags WHERE id = ${id} FOR UPDATE`;
  return tag ?? null;
}

const ENSURE_ATTEMPTS = 3;

/**
 * The ids of the workspace's tags with these names, creating the ones it lacks. Concurrent
 * creators of one name meet at the unique index: ON CONFLICT DO NOTHING, then one read, which
 * locks them for the rest of the caller's transaction.
 */
export async function ensureTags(
  client: DbClient,
  workspaceId: string,
  names: readonly string[],
  color: string,
): Promise<string[]> {
  if (names.length === 0) return [];
  const keys = [...new Set(names.map(nameKey))];
  const firstSpelling = new Map(names.map((name) => [nameKey(name), name]).reverse() as [string, string][]);
  for (let attempt = 1; attempt <= ENSURE_ATTEMPTS; attempt++) {
    await client.tag.createMany({
      data: keys.map((key) => ({ id: newId("tag"), workspaceId, name: firstSpelling.get(key)!, nameKey: key, color })),
      skipDuplicates: true,
    });
    // FOR SHARE until the caller commits, so the database decides a race with a rename or delete of one of
    // these tags (lockTag, FOR UPDATE): it waits until the link given the tag here is committed and then
    // finds it among the links carrying the tag (its history row and link.updated), or this waits for it
    // and reads the tag as it left it. Shared, so links given one tag at once never wait for each other;
    // in id order, the same order in every transaction.
    const tags = await client.$queryRaw<{ id: string }[]>`
      SELECT id FROM tags WHERE workspace_id = ${workspaceId} AND name_key = ANY(${keys}::text[]) ORDER BY id FOR SHARE`;
    if (tags.length === keys.length) return tags.map((tag) => tag.id);
    // A tag renamed or deleted while this waited for it no longer has the name asked for: that name is created again.
  }
  throw new DomainError(
    "conflict",
    "A tag this link names was renamed or deleted at the same moment, again and again; try again.",
  );
}

/** Makes the link's tags exactly these: ids ensureTags handed out (and locked) in the same transaction. */
export async function replaceLinkTags(client: DbClient, linkId: string, tagIds: readonly string[]): Promise<void> {
  await client.linkTag.deleteMany({ where: { linkId, tagId: { notIn: [...tagIds] } } });
  if (tagIds.length > 0) {
    await client.linkTag.createMany({ data: tagIds.map((tagId) => ({ linkId, tagId })), skipDuplicates: true });
  }
}
