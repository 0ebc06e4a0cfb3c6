import { type DbClient, transaction } from "@/lib/db/client";
import { notFound } from "@/lib/http/errors";
import type { TagView, UpdateTagInput } from "@/lib/tags/schemas";
import { findEditableTag, nameTaken, TAG_NOT_FOUND, toTagView } from "@/lib/tags/service";
import * as tagStore from "@/lib/tags/store";
import type { Principal } from "@/lib/workspaces/types";
import { linksChanged } from "./changes";
import * as store from "./store";

/**
 * Renames or recolours a tag. A new name changes the tags every link carrying it shows, so it is
 * each of those links' change, as a PATCH of its tags is: in the rename's transaction, every such
 * link gets its history row (`edited`, its tags before and after) and its `link.updated`, all
 * written set-based, and each is announced once the transaction has committed. A colour is not part
 * of a link (its history and view name tags only), so a recolour alone changes no link.
 */
export async function updateTag(principal: Principal, id: string, input: UpdateTagInput): Promise<TagView> {
  const tag = await findEditableTag(principal, id);
  return transaction(async (tx) => {
    // The links first, then the tag: an edit of one of them holds its link and may wait for the tag, never the reverse.
    const before = await store.lockLinksTagged(tx, tag.id);
    const updated = await tagStore.updateTag(tag.id, input, tx);
    // Thrown inside: the refused statement has ended the transaction, which rolls back.
    if (updated === "taken") throw nameTaken(input.name!);
    if (!updated) throw notFound(TAG_NOT_FOUND);
    if (updated.name !== tag.name) await tagChangedLinks(tx, before, principal);
    return toTagView(updated);
  });
}

/** Takes the tag off every link and deletes it; the links stay, each with its history row and `link.updated`. Answers the tag as it was. */
export async function deleteTag(principal: Principal, id: string): Promise<TagView> {
  const tag = await findEditableTag(principal, id);
  return transaction(async (tx) => {
    const before = await store.lockLinksTagged(tx, tag.id);
    if (!(await tagStore.deleteTag(tag.id, tx))) throw notFound(TAG_NOT_FOUND);
    await tagChangedLinks(tx, before, principal);
    return toTagView(tag);
  });
}

/** Each locked link, read again after the tag's change, told as its edit: a constant number of statements for any number of links. */
async function tagChangedLinks(tx: DbClient, before: readonly store.LinkRow[], by: Principal): Promise<void> {
  const after = new Map(
    (
      await store.readLinks(
        tx,
        before.map((link) => link.id),
      )
    ).map((link) => [link.id, link]),
  );
  await linksChanged(
    tx,
    before.map((was) => ({ kind: "edited" as const, link: after.get(was.id)!, before: was, by })),
  );
}
