"use server";

import { type ActionResult, dashboardAction } from "@/lib/api/dashboard";
import { deleteTag, updateTag } from "@/lib/links/tag-changes";
import * as tagOperations from "@/lib/tags/operations";
import { createTag } from "@/lib/tags/service";
import { revalidatePath } from "next/cache";

/** The form's names for the tag's fields, in its words. */
const TAG_FIELDS = { name: "The tag's name", color: "The colour" };

/** Tags show on the links list, its filter and every link's page: they are all drawn afresh. */
function redraw(): void {
  revalidatePath("/dashboard", "layout");
}

/** What was typed comes back with a refusal: React clears a form after its action. */
export type AddTagState = (ActionResult<string> & { typed?: { name: string; color: string }; attempt: number }) | null;

/** Adds a tag with its colour: POST /api/tags's schema and capability. */
export async function addTagAction(previous: AddTagState, form: FormData): Promise<AddTagState> {
  const field = (name: string) => String((form instanceof FormData && form.get(name)) || "");
  const typed = { name: field("name"), color: field("color") };
  const result = await dashboardAction(
    tagOperations.createTag,
    { name: typed.name, color: typed.color || undefined },
    async (principal, body) => {
      const tag = await createTag(principal, body);
      return `Added the tag "${tag.name}" in ${tag.color}. Give it to links from the links list or a link's page.`;
    },
    TAG_FIELDS,
  );
  if (result.ok) redraw();
  const attempt = (previous?.attempt ?? 0) + 1;
  return result.ok ? { ...result, attempt } : { ...result, typed, attempt };
}

/** A new name on every link that carries the tag: PATCH /api/tags/{id}'s schema and capability. */
export async function renameTagAction(id: string, name: string): Promise<ActionResult<string>> {
  return changeTag(id, { name }, (tag) => `Renamed: the tag is "${tag.name}" now, on every link that carries it.`);
}

/** Gives a tag another colour on every link that carries it: PATCH /api/tags/{id}'s schema and capability. */
export async function recolourTagAction(id: string, color: string): Promise<ActionResult<string>> {
  return changeTag(id, { color }, (tag) => `"${tag.name}" is ${tag.color} now.`);
}

async function changeTag(
  id: string,
  change: { name: string } | { color: string },
  said: (tag: { name: string; color: string }) => string,
): Promise<ActionResult<string>> {
  const result = await dashboardAction(
    tagOperations.updateTag,
    change,
    async (principal, body) => said(await updateTag(principal, String(id), body)),
    TAG_FIELDS,
  );
  if (result.ok) redraw();
  return result;
}

/** Deletes the tag and takes it off its links, which stay as they are: DELETE /api/tags/{id}'s capability. */
export async function deleteTagAction(id: string): Promise<ActionResult<string>> {
  const result = await dashboardAction(tagOperations.deleteTag, undefined, async (principal) => {
    const tag = await deleteTag(principal, String(id));
    return `Deleted the tag "${tag.name}". Its links are unchanged and keep working; they no longer carry it.`;
  });
  if (result.ok) redraw();
  return result;
}
