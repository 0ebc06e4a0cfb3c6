import { isRecordId } from "@/lib/db/random";
import { DomainError, notFound } from "@/lib/http/errors";
import { requirePermission } from "@/lib/workspaces/permissions";
import type { Principal } from "@/lib/workspaces/types";
import { type CreateTagInput, DEFAULT_TAG_COLOR, TAG_COLORS, type TagView } from "./schemas";
import type { TagRow } from "./store";
import * as store from "./store";

export const TAG_NOT_FOUND = "No tag with this id exists in this workspace.";

export async function listTags(principal: Principal): Promise<{ tags: TagView[] }> {
  requirePermission(principal, "links.read", "Your role in this workspace does not allow reading tags.");
  return { tags: (await store.listTags(principal.workspaceId)).map(toTagView) };
}

/** Whoever may create links may create the tags they carry. */
export async function createTag(principal: Principal, input: CreateTagInput): Promise<TagView> {
  requirePermission(principal, "links.create", "Your role in this workspace does not allow creating tags.");
  const tag = await store.insertTag(principal.workspaceId, input.name, input.color ?? DEFAULT_TAG_COLOR);
  if (!tag) throw nameTaken(input.name);
  return toTagView(tag);
}

/**
 * The tag a rename, recolour or delete is about: those change every link carrying it at once, so they are for
 * those who may edit any link. The change itself is the links' (lib/links/tag-changes.ts): it writes each
 * affected link's history and announcement with it.
 */
export async function findEditableTag(principal: Principal, id: string): Promise<TagRow> {
  requirePermission(principal, "links.edit_any", "Your role in this workspace does not allow changing tags.");
  const tag = isRecordId(id) ? await store.findTag(principal.workspaceId, id) : null;
  if (!tag) throw notFound(TAG_NOT_FOUND);
  return tag;
}

export function nameTaken(name: string): DomainError {
  return new DomainError(
    "conflict",
    `This workspace already has a tag named "${name}" (names are compared without regard to case).`,
  );
}

export function toTagView(tag: TagRow): TagView {
  const color = TAG_COLORS.find((known) => known === tag.color) ?? DEFAULT_TAG_COLOR;
  return { id: tag.id, name: tag.name, color };
}
