"use server";

import { inCustomerWords } from "@/lib/api/customer-words";
import { type ActionResult, dashboardAction } from "@/lib/api/dashboard";
import { DomainError } from "@/lib/http/errors";
import * as linkOperations from "@/lib/links/operations";
import { tagNamesOf, toLinkView } from "@/lib/links/present";
import type { LinkView } from "@/lib/links/schemas";
import { archive, createLink, editLink, getLink, restore } from "@/lib/links/service";
import { withScheme } from "@/lib/links/typed-destination";
import { fillPreview } from "@/lib/logos/operations";
import { fillPreviewFromDestination } from "@/lib/logos/preview-fill";
import { setLinkQrDesign, setWorkspaceQrDesign } from "@/lib/qr/operations";
import type { QrDesignView } from "@/lib/qr/schemas";
import { saveLinkDesign, saveWorkspaceDesign } from "@/lib/qr/service";
import { MAX_TAGS_PER_LINK } from "@/lib/tags/schemas";
import { nameKey } from "@/lib/tags/store";
import { revalidatePath } from "next/cache";
import { optional, required, typedDestination, typedTags } from "../form-fields";

/** The result, and what was typed (React resets a form after its action: an error puts the values back). */
export type CreateLinkState =
  | (ActionResult<{ link: LinkView; created: boolean }> & {
      attempt: number;
      input: { destination?: string; slug?: string; domain_id?: string; title?: string; tags?: string };
    })
  | null;

export async function createLinkAction(previous: CreateLinkState, form: FormData): Promise<CreateLinkState> {
  const tags = typedTags(form);
  const input = {
    destination: typedDestination(form),
    slug: optional(form, "slug"),
    domain_id: optional(form, "domain_id"),
    title: optional(form, "title"),
    tags: tags.length > 0 ? tags : undefined,
  };
  const result = await dashboardAction(
    linkOperations.createLink,
    input,
    async (principal, body) => {
      const { link, created } = await createLink(principal, body);
      return { link: toLinkView(link), created };
    },
    { destination: "The destination", slug: "The custom slug", domain_id: "The domain", title: "The title", tags: "The tags" },
  );
  if (result.ok) revalidatePath("/dashboard");
  const typed = result.ok
    ? {}
    : {
        destination: required(form, "destination"),
        slug: required(form, "slug"),
        domain_id: required(form, "domain_id"),
        title: required(form, "title"),
        tags: required(form, "tags"),
      };
  return { ...result, attempt: (previous?.attempt ?? 0) + 1, input: typed };
}

export type LinkEditState = (ActionResult<string> & { typed?: string }) | null;

export async function repointLinkAction(_previous: LinkEditState, form: FormData): Promise<LinkEditState> {
  const id = required(form, "id");
  const result = await dashboardAction(
    linkOperations.updateLink,
    { destination: typedDestination(form) },
    async (principal, body) => {
      const link = await editLink(principal, id, body);
      return link.destination;
    },
    { destination: "The new destination" },
  );
  if (result.ok) revalidatePath("/dashboard", "layout");
  return result.ok ? result : { ...result, typed: required(form, "destination") };
}

/** The title and tags form's answer; a refusal carries back what was typed. */
export type LabelState = (ActionResult<string> & { typed?: { title: string; tags: string } }) | null;

/** The link's title and tags, as PATCH /api/links/{id} sets them: a blank title removes it, the tags replace the link's. */
export async function labelLinkAction(_previous: LabelState, form: FormData): Promise<LabelState> {
  const id = required(form, "id");
  const result = await dashboardAction(
    linkOperations.updateLink,
    { title: required(form, "title").trim(), tags: typedTags(form) },
    async (principal, body) => {
      const link = await editLink(principal, id, body);
      const tags = tagNamesOf(link);
      return `Saved: ${link.title ? `"${link.title}"` : "no title"}, ${tags.length === 0 ? "no tags" : `tagged ${tags.join(", ")}`}.`;
    },
    { title: "The title", tags: "The tags" },
  );
  if (result.ok) revalidatePath("/dashboard", "layout");
  return result.ok ? result : { ...result, typed: { title: required(form, "title"), tags: required(form, "tags") } };
}

/**
 * The link's password, as PATCH /api/links/{id} sets it: a new one replaces the old (visitors
 * who entered the old one must enter the new one), "remove" takes it away. Never shown back.
 */
export async function protectLinkAction(_previous: LinkEditState, form: FormData): Promise<LinkEditState> {
  const id = required(form, "id");
  const removing = required(form, "intent") === "remove";
  const result = await dashboardAction(
    linkOperations.updateLink,
    { password: removing ? null : required(form, "password") },
    async (principal, body) => {
      await editLink(principal, id, body);
      return removing
        ? "The password is removed: visitors go straight to the destination."
        : "Saved: visitors must enter this password before they go on.";
    },
    { password: "The password" },
  );
  if (result.ok) revalidatePath("/dashboard", "layout");
  return result;
}

/**
 * The link's social preview: "save" sets its title and description as typed (an empty field
 * removes one), "fill" reads them and the image from the destination's own page, once, now,
 * "remove" takes the whole preview away, its image too.
 */
export async function previewLinkAction(_previous: LinkEditState, form: FormData): Promise<LinkEditState> {
  const id = required(form, "id");
  const intent = required(form, "intent");
  if (intent === "fill") {
    const result = await dashboardAction(fillPreview, undefined, async (principal) => {
      await fillPreviewFromDestination(principal, id);
      return "Filled from the destination's page: check the preview, and change what you like.";
    });
    if (result.ok) revalidatePath("/dashboard", "layout");
    return result;
  }
  const result = await dashboardAction(
    linkOperations.updateLink,
    {
      preview:
        intent === "remove"
          ? null
          : { title: optional(form, "preview_title") ?? null, description: optional(form, "preview_description") ?? null },
    },
    async (principal, body) => {
      await editLink(principal, id, body);
      return intent === "remove"
        ? "The preview is removed: apps that show links read the destination's own page."
        : "Saved: apps like Slack, WhatsApp and iMessage show this preview for the link.";
    },
    { preview: "The preview" },
  );
  if (result.ok) revalidatePath("/dashboard", "layout");
  return result;
}

/** After how many scans the link switches, and where to; "remove" takes the limit away. */
export async function scanLimitAction(_previous: LinkEditState, form: FormData): Promise<LinkEditState> {
  const id = required(form, "id");
  const removing = required(form, "intent") === "remove";
  const typedAfter = required(form, "after").replaceAll(/[\s,]/g, "");
  const result = await dashboardAction(
    linkOperations.updateLink,
    {
      scan_limit: removing
        ? null
        : {
            after: /^\d+$/.test(typedAfter) ? Number(typedAfter) : Number.NaN,
            destination: withScheme(required(form, "destination")),
          },
    },
    async (principal, body) => {
      const link = await editLink(principal, id, body);
      const view = toLinkView(link);
      return view.scan_limit
        ? `Saved: after ${view.scan_limit.after} more scans, visitors go to ${view.scan_limit.destination}.`
        : "The scan limit is removed: visitors keep going to the destination.";
    },
    { scan_limit: "The scan limit" },
  );
  if (result.ok) revalidatePath("/dashboard", "layout");
  return result;
}

export async function archiveLinkAction(_previous: LinkEditState, form: FormData): Promise<LinkEditState> {
  const id = required(form, "id");
  const result = await dashboardAction(linkOperations.archiveLink, undefined, async (principal) => {
    await archive(principal, id);
    return "Archived: the link keeps resolving and now shows under Archived.";
  });
  if (result.ok) revalidatePath("/dashboard", "layout");
  return result;
}

export async function restoreLinkAction(_previous: LinkEditState, form: FormData): Promise<LinkEditState> {
  const id = required(form, "id");
  const result = await dashboardAction(linkOperations.restoreLink, undefined, async (principal) => {
    await restore(principal, id);
    return "Restored: the link is back in the main list.";
  });
  if (result.ok) revalidatePath("/dashboard", "layout");
  return result;
}

/** The QR designer's names for its options. */
const QR_FIELDS = {
  size: "The size",
  margin: "The quiet zone",
  fg: "The foreground colour",
  bg: "The background colour",
  level: "The error correction",
  logo: "The logo choice",
};

/** Saves the designer's options as the link's own design, or as the workspace's default: PUT …/qr-design's schema and capability. */
export async function saveQrDesignAction(
  linkId: string,
  scope: "link" | "workspace",
  design: unknown,
): Promise<ActionResult<QrDesignView>> {
  const result =
    scope === "link"
      ? await dashboardAction(setLinkQrDesign, design, (principal, body) => saveLinkDesign(principal, linkId, body), QR_FIELDS)
      : await dashboardAction(setWorkspaceQrDesign, design, saveWorkspaceDesign, QR_FIELDS);
  if (result.ok) revalidatePath(`/dashboard/links/${linkId}`);
  return result;
}

/** The most links one selection archives or restores at once: a page of the list. */
const MAX_SELECTION = 50;

const LIST_CHANGES = {
  archive: {
    operation: linkOperations.archiveLink,
    apply: archive,
    done: "Archived",
    where: "now under Archived; archived links keep resolving",
  },
  restore: { operation: linkOperations.restoreLink, apply: restore, done: "Restored", where: "back in the list" },
} as const;

/**
 * Archives or restores the selected links, each as DELETE /api/links/{id} or POST …/restore does
 * (its own permission check), counted as one write; says how many changed and why any did not.
 */
export async function changeLinksAction(ids: string[], change: keyof typeof LIST_CHANGES): Promise<ActionResult<string>> {
  // What the list's buttons send; anything else was not sent by the page.
  if (!Array.isArray(ids) || !Object.hasOwn(LIST_CHANGES, change))
    return { ok: false, error: "Choose the links to change from the list, then archive or restore them." };
  const { operation, apply, done, where } = LIST_CHANGES[change];
  const result = await dashboardAction(operation, undefined, async (principal) => {
    const chosen = [...new Set(ids)].filter((id) => typeof id === "string").slice(0, MAX_SELECTION);
    const refusals: string[] = [];
    for (const id of chosen) {
      try {
        await apply(principal, id);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        refusals.push(inCustomerWords(error.message));
      }
    }
    const changed = chosen.length - refusals.length;
    const summary = `${done} ${changed} ${changed === 1 ? "link" : "links"}: ${where}.`;
    if (refusals.length === 0) return summary;
    return `${changed > 0 ? `${summary} ` : ""}${refusals.length} could not be changed: ${[...new Set(refusals)].join(" ")}`;
  });
  if (result.ok) revalidatePath("/dashboard", "layout");
  return result;
}

/**
 * Adds a tag to the selected links, or takes it off them, each as PATCH /api/links/{id} with its
 * new set of tags (the operation's tag name rules, its permission check), counted as one write.
 */
export async function tagLinksAction(ids: string[], tag: string, change: "add" | "remove"): Promise<ActionResult<string>> {
  if (!Array.isArray(ids) || (change !== "add" && change !== "remove"))
    return { ok: false, error: "Choose the links from the list, then add a tag to them or remove one." };
  const result = await dashboardAction(
    linkOperations.updateLink,
    { tags: [typeof tag === "string" ? tag : ""] },
    async (principal, body) => {
      const name = body.tags![0]!;
      const chosen = [...new Set(ids)].filter((id) => typeof id === "string").slice(0, MAX_SELECTION);
      const refusals: string[] = [];
      for (const id of chosen) {
        try {
          const link = await getLink(principal, id);
          const others = tagNamesOf(link).filter((other) => nameKey(other) !== nameKey(name));
          const tags = change === "add" ? [...others, name] : others;
          if (tags.length > MAX_TAGS_PER_LINK)
            throw new DomainError("invalid_request", `A link may carry at most ${MAX_TAGS_PER_LINK} tags.`);
          await editLink(principal, id, { tags });
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          refusals.push(inCustomerWords(error.message));
        }
      }
      const changed = chosen.length - refusals.length;
      const links = `${changed} ${changed === 1 ? "link" : "links"}`;
      const summary = change === "add" ? `Tagged ${links} with "${name}".` : `Took off ${links} the tag "${name}".`;
      if (refusals.length === 0) return summary;
      return `${changed > 0 ? `${summary} ` : ""}${refusals.length} could not be changed: ${[...new Set(refusals)].join(" ")}`;
    },
    { tags: "The tag" },
  );
  if (result.ok) revalidatePath("/dashboard", "layout");
  return result;
}
