import { db, type DbClient } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { newId } from "@/lib/db/random";

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
 * The ids of the workspace's tags with these names, creating the ones it lacks. Concurrent
 * creators of one name meet at the unique index: ON CONFLICT DO NOTHING, then one read.
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
  await client.tag.createMany({
    data: keys.map((key) => ({ id: newId("tag"), workspaceId, name: firstSpelling.get(key)!, nameKey: key, color })),
    skipDuplicates: true,
  });
  const tags = await client.tag.findMany({ where: { workspaceId, nameKey: { in: keys } }, select: { id: true } });
  return tags.map((tag) => tag.id);
}

/** Makes the link's tags exactly these. */
export async function replaceLinkTags(client: DbClient, linkId: string, tagIds: readonly string[]): Promise<void> {
  await client.linkTag.deleteMany({ where: { linkId, tagId: { notIn: [...tagIds] } } });
  if (tagIds.length > 0) {
    await client.linkTag.createMany({ data: tagIds.map((tagId) => ({ linkId, tagId })), skipDuplicates: true });
  }
}
