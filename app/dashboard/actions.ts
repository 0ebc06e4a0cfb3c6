"use server";

import { cookies } from "next/headers";
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { config } from "@/lib/config";
import { type ActionResult, dashboardAction, dashboardContext, WORKSPACE_COOKIE } from "@/lib/api/dashboard";
import { inCustomerWords } from "@/lib/api/customer-words";
import { openBillingPortal, startCheckout as startCheckoutOperation } from "@/lib/billing/operations";
import { openPortal, startCheckout } from "@/lib/billing/service";
import { archiveLink, createLink as createLinkOperation, restoreLink, updateLink } from "@/lib/links/operations";
import {
  addDomain as addDomainOperation,
  removeDomain as removeDomainOperation,
  verifyDomain as verifyDomainOperation,
} from "@/lib/domains/operations";
import { addDomain, getDomain, removeDomain, verifyDomain } from "@/lib/domains/service";
import { tagNamesOf, toLinkView } from "@/lib/links/present";
import { MAX_TAGS_PER_LINK } from "@/lib/tags/schemas";
import { nameKey } from "@/lib/tags/store";
import { withScheme } from "@/lib/links/typed-destination";
import { utmFromForm, withUtm } from "@/lib/utm/parameters";
import { archive, createLink, editLink, getLink, restore } from "@/lib/links/service";
import type { LinkView } from "@/lib/links/schemas";
import {
  acceptInvitation as acceptInvitationOperation,
  changeMemberRole,
  inviteMember as inviteMemberOperation,
  removeMember as removeMemberOperation,
  resendInvitation as resendInvitationOperation,
} from "@/lib/members/operations";
import { acceptInvitation, changeRole, inviteMember, removeMember, resendInvitation } from "@/lib/members/service";
import {
  claimApiKey,
  createWorkspace as createWorkspaceOperation,
  renameWorkspace as renameWorkspaceOperation,
  revokeApiKey,
  rotateApiKey as rotateApiKeyOperation,
} from "@/lib/workspaces/operations";
import { claimKey, revokeKey, rotateKeyAsOwner } from "@/lib/workspaces/api-key";
import { createWorkspace, renameWorkspace } from "@/lib/workspaces/service";
import { endAllDashboardSessions } from "@/lib/workspaces/sign-in";
import { findRole } from "@/lib/workspaces/store";
import { tabOf } from "./tabs";
import { DomainError } from "@/lib/http/errors";
import { setLinkQrDesign, setWorkspaceQrDesign } from "@/lib/qr/operations";
import { saveLinkDesign, saveWorkspaceDesign } from "@/lib/qr/service";
import type { QrDesignView } from "@/lib/qr/schemas";

/** A field of the form; null when what arrived is not a form (an action can be called with anything). */
function fieldOf(form: FormData, name: string): FormDataEntryValue | null {
  return form instanceof FormData ? form.get(name) : null;
}

/** A form's blank optional field is absent, as a JSON client would leave it out. */
function optional(form: FormData, name: string): string | undefined {
  const value = fieldOf(form, name);
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

function required(form: FormData, name: string): string {
  const value = fieldOf(form, name);
  return typeof value === "string" ? value : "";
}

/** The destination as typed (https:// added when it has no scheme), with the form's UTM fields, if it has them, in its query. */
function typedDestination(form: FormData): string {
  return withUtm(
    withScheme(required(form, "destination")),
    utmFromForm((name) => fieldOf(form, name)),
  );
}

/** The result, and what was typed (React resets a form after its action: an error puts the values back). */
export type CreateLinkState =
  | (ActionResult<{ link: LinkView; created: boolean }> & {
      attempt: number;
      input: { destination?: string; slug?: string; domain_id?: string; title?: string; tags?: string };
    })
  | null;

/** The tags field as the form has it, names separated by commas; blank when none. */
function typedTags(form: FormData): string[] {
  return required(form, "tags")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
}

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
    createLinkOperation,
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
    updateLink,
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
    updateLink,
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
    updateLink,
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

/** After how many scans the link switches, and where to; "remove" takes the limit away. */
export async function scanLimitAction(_previous: LinkEditState, form: FormData): Promise<LinkEditState> {
  const id = required(form, "id");
  const removing = required(form, "intent") === "remove";
  const typedAfter = required(form, "after").replaceAll(/[\s,]/g, "");
  const result = await dashboardAction(
    updateLink,
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
  const result = await dashboardAction(archiveLink, undefined, async (principal) => {
    await archive(principal, id);
    return "Archived: the link keeps resolving and now shows under Archived.";
  });
  if (result.ok) revalidatePath("/dashboard", "layout");
  return result;
}

export async function restoreLinkAction(_previous: LinkEditState, form: FormData): Promise<LinkEditState> {
  const id = required(form, "id");
  const result = await dashboardAction(restoreLink, undefined, async (principal) => {
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
    operation: archiveLink,
    apply: archive,
    done: "Archived",
    where: "now under Archived; archived links keep resolving",
  },
  restore: { operation: restoreLink, apply: restore, done: "Restored", where: "back in the list" },
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
    updateLink,
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

/** Acts on another workspace from now on, if the user is a member of it (checked again on every request). */
export async function switchWorkspaceAction(form: FormData): Promise<void> {
  const context = await dashboardContext();
  const workspaceId = required(form, "workspace");
  if (!context) redirect("/signin");
  const member = workspaceId === context.user.personalWorkspaceId || (await findRole(workspaceId, context.user.userId)) !== null;
  if (member) (await cookies()).set(WORKSPACE_COOKIE, workspaceId, workspaceCookieOptions());
  redirect(tabOf(optional(form, "tab") ?? "") ?? "/dashboard");
}

function workspaceCookieOptions() {
  return { httpOnly: true, sameSite: "lax" as const, path: "/", secure: config().BASE_URL.startsWith("https:") };
}

export type RedirectState = { error: string } | null;

export async function checkoutAction(_previous: RedirectState, form: FormData): Promise<RedirectState> {
  const result = await dashboardAction(
    startCheckoutOperation,
    { plan: optional(form, "plan"), interval: optional(form, "interval") },
    startCheckout,
  );
  if (!result.ok) return { error: result.error };
  redirect(result.value.url);
}

export async function portalAction(_previous: RedirectState): Promise<RedirectState> {
  const result = await dashboardAction(openBillingPortal, undefined, openPortal);
  if (!result.ok) return { error: result.error };
  redirect(result.value.url);
}

export type KeyState = ActionResult<{ key?: string; message: string }> | null;

export async function claimKeyAction(): Promise<KeyState> {
  const result = await dashboardAction(claimApiKey, undefined, async (principal) => ({
    key: await claimKey(principal),
    message: "Key created.",
  }));
  if (result.ok) revalidatePath("/dashboard/settings");
  return result;
}

export async function revokeKeyAction(): Promise<KeyState> {
  const result = await dashboardAction(revokeApiKey, undefined, async (principal) => {
    await revokeKey(principal);
    return { message: "The key was revoked: programs using it are refused from now on." };
  });
  if (result.ok) revalidatePath("/dashboard/settings");
  return result;
}

/** A new key in place of the live one, at once: the old key stops working, the new one is shown once. */
export async function rotateKeyAction(): Promise<KeyState> {
  const result = await dashboardAction(rotateApiKeyOperation, undefined, async (principal) => ({
    key: await rotateKeyAsOwner(principal),
    message: "The key was replaced: the old one is refused from now on.",
  }));
  if (result.ok) revalidatePath("/dashboard/settings");
  return result;
}

export type MemberState = ActionResult<string> | null;

const KEY_WENT_WITH_THEM =
  " The API key they created was revoked with it: integrations using it stop, and the owners were e-mailed." +
  " Claim a new key on the Settings page.";

/** What the answer says when the person's webhook endpoints went with them. */
function webhooksWentWithThem(departure: { webhooks_disabled: string[]; webhooks_rotation_due: string[] }): string {
  if (departure.webhooks_disabled.length === 0 && departure.webhooks_rotation_due.length === 0) return "";
  return " The webhooks they set up were turned off, and those whose secret they saw need a new one; the owners were e-mailed.";
}

/** An invitation's answer; a refusal carries back what was typed, for the form to show again. */
export type InviteState = (ActionResult<string> & { attempt: number; typed?: { email: string; role: string } }) | null;

export async function inviteAction(previous: InviteState, form: FormData): Promise<InviteState> {
  const result = await dashboardAction(
    inviteMemberOperation,
    { email: required(form, "email").trim(), role: optional(form, "role") },
    async (principal, body) => {
      const invited = await inviteMember(principal, body);
      return `Invitation sent to ${invited.email}${invited.invite_url ? ` (no mail server here: the link is ${invited.invite_url})` : ""}.`;
    },
    { email: "The e-mail address", role: "The role" },
  );
  if (result.ok) revalidatePath("/dashboard/members");
  const attempt = (previous?.attempt ?? 0) + 1;
  return result.ok
    ? { ...result, attempt }
    : { ...result, attempt, typed: { email: required(form, "email"), role: required(form, "role") } };
}

export async function changeRoleAction(_previous: MemberState, form: FormData): Promise<MemberState> {
  const id = required(form, "id");
  const result = await dashboardAction(changeMemberRole, { role: required(form, "role") }, async (principal, body) => {
    const member = await changeRole(principal, id, body.role);
    const keyNote = member.api_key_revoked ? KEY_WENT_WITH_THEM : "";
    return `${member.email ?? "The member"} is now ${member.role}.${keyNote}${webhooksWentWithThem(member)}`;
  });
  if (result.ok) revalidatePath("/dashboard/members");
  return result;
}

export async function removeMemberAction(_previous: MemberState, form: FormData): Promise<MemberState> {
  const id = required(form, "id");
  const result = await dashboardAction(removeMemberOperation, undefined, async (principal) => {
    const removal = await removeMember(principal, id);
    if (id.startsWith("inv_")) return "The invitation was revoked.";
    const keyNote = removal.api_key_revoked ? KEY_WENT_WITH_THEM : "";
    return `The member was removed; their links stay with the workspace.${keyNote}${webhooksWentWithThem(removal)}`;
  });
  if (result.ok) revalidatePath("/dashboard/members");
  return result;
}

export async function resendAction(_previous: MemberState, form: FormData): Promise<MemberState> {
  const id = required(form, "id");
  const result = await dashboardAction(resendInvitationOperation, undefined, async (principal) => {
    const invitation = await resendInvitation(principal, id);
    return `A new link was sent to ${invitation.email}; the old one no longer works.`;
  });
  if (result.ok) revalidatePath("/dashboard/members");
  return result;
}

/** Leaving is removing yourself; the dashboard then acts on your personal workspace. */
export async function leaveAction(previous: MemberState, form: FormData): Promise<MemberState> {
  const result = await removeMemberAction(previous, form);
  if (!result?.ok) return result;
  (await cookies()).delete(WORKSPACE_COOKIE);
  redirect("/dashboard");
}

export async function acceptInvitationAction(_previous: MemberState, form: FormData): Promise<MemberState> {
  const token = required(form, "token");
  const result = await dashboardAction(acceptInvitationOperation, undefined, (principal) => acceptInvitation(principal, token));
  if (!result.ok) return result;
  (await cookies()).set(WORKSPACE_COOKIE, result.value.workspace.id, workspaceCookieOptions());
  redirect("/dashboard");
}

export async function createWorkspaceAction(_previous: MemberState, form: FormData): Promise<MemberState> {
  const result = await dashboardAction(
    createWorkspaceOperation,
    { name: required(form, "name") },
    (principal, body) => createWorkspace(principal, body.name),
    { name: "The workspace's name" },
  );
  if (!result.ok) return result;
  (await cookies()).set(WORKSPACE_COOKIE, result.value.id, workspaceCookieOptions());
  redirect("/dashboard/settings");
}

export async function renameWorkspaceAction(_previous: MemberState, form: FormData): Promise<MemberState> {
  const result = await dashboardAction(
    renameWorkspaceOperation,
    { name: required(form, "name") },
    async (principal, body) => {
      const renamed = await renameWorkspace(principal, body.name);
      return `Renamed to ${renamed.name}.`;
    },
    { name: "The workspace's name" },
  );
  if (result.ok) revalidatePath("/dashboard", "layout");
  return result;
}

export type DomainState = ActionResult<string> | null;

export async function addDomainAction(_previous: DomainState, form: FormData): Promise<DomainState> {
  const result = await dashboardAction(
    addDomainOperation,
    { hostname: required(form, "hostname") },
    async (principal, body) => {
      const domain = await addDomain(principal, body);
      return `Added ${domain.hostname}: create the records listed under it at your DNS provider.`;
    },
    { hostname: "The hostname" },
  );
  if (result.ok) revalidatePath("/dashboard/domains");
  return result;
}

export async function verifyDomainAction(_previous: DomainState, form: FormData): Promise<DomainState> {
  const id = required(form, "id");
  const result = await dashboardAction(verifyDomainOperation, undefined, async (principal) => {
    const domain = await verifyDomain(principal, id);
    return `Checked ${domain.hostname} just now: ${domain.verified ? "verified" : "not verified yet"}, status ${domain.hostname_status}.`;
  });
  if (result.ok) revalidatePath("/dashboard/domains");
  return result;
}

/** Answers the removed domain's hostname, as the server knows it, for the page to name (its card is gone). */
export async function removeDomainAction(_previous: DomainState, form: FormData): Promise<DomainState> {
  const id = required(form, "id");
  return dashboardAction(removeDomainOperation, undefined, async (principal) => {
    const { hostname } = await getDomain(principal, id);
    await removeDomain(principal, id);
    return hostname;
  });
}

/** Ends every dashboard session of the signed-in person, on every device, this one included; then off to sign-in. */
export async function signOutEverywhereAction(): Promise<void> {
  const context = await dashboardContext();
  if (context) await endAllDashboardSessions(context.user.userId);
  redirect("/signin");
}
