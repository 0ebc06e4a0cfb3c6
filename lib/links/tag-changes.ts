import { type DbClient, transaction } from "@/lib/db/client";
import { DomainError, notFound } from "@/lib/http/errors";
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
  await findEditableTag(principal, id);
  return withTagAndItsLinksLocked(id, async (tx, tag, before) => {
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
  await findEditableTag(principal, id);
  return withTagAndItsLinksLocked(id, async (tx, tag, before) => {
    if (!(await tagStore.deleteTag(tag.id, tx))) throw notFound(TAG_NOT_FOUND);
    await tagChangedLinks(tx, before, principal);
    return toTagView(tag);
  });
}

const RETRY = Symbol("retry");
const LOCK_ATTEMPTS = 3;

/**
 * Runs a rename or delete with the tag and every link carrying it locked, and those links as they
 * were before it ("before"), in one transaction.
 *
 * The links first, then the tag: an edit holds its link before it reaches its tags (editLink), so a
 * change that held the tag first could wait for a link whose edit waits for the tag. Locking the tag
 * (FOR UPDATE) waits for every transaction giving a link this tag, which holds it FOR SHARE until it
 * commits (ensureTags), and makes every later one wait for this; so the links carrying the tag are read
 * again once it is held, and a link tagged in between is among them. Such a link is locked without
 * waiting (its edit may be one waiting for this tag): when another transaction holds one, every lock is
 * given back and the change starts again, taking that link with the others first.
 */
async function withTagAndItsLinksLocked<Result>(
  tagId: string,
  change: (tx: DbClient, tag: tagStore.TagRow, before: store.LinkRow[]) => Promise<Result>,
): Promise<Result> {
  for (let attempt = 1; attempt <= LOCK_ATTEMPTS; attempt++) {
    const outcome = await transaction(async (tx) => {
      const locked = new Set(await store.lockLinksTagged(tx, tagId));
      const tag = await tagStore.lockTag(tx, tagId);
      if (!tag) throw notFound(TAG_NOT_FOUND);
      const carrying = await store.linksTagged(tx, tagId);
      const late = carrying.filter((linkId) => !locked.has(linkId));
      if (late.length > 0 && (await store.lockFreeLinks(tx, late)).length < late.length) return RETRY;
      // Only the links carrying the tag now: one whose edit took the tag off while this waited for it changes no more.
      return { result: await change(tx, tag, await store.readLinks(tx, carrying)) };
    });
    if (outcome !== RETRY) return outcome.result;
  }
  throw new DomainError("conflict", "Links carrying this tag are being tagged at this very moment; try again in a moment.");
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
