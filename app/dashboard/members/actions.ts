"use server";

import { type ActionResult, dashboardAction, WORKSPACE_COOKIE } from "@/lib/api/dashboard";
import { acceptInvitation, inviteMember, resendInvitation } from "@/lib/members/invitations";
import * as memberOperations from "@/lib/members/operations";
import { changeRole, removeMember } from "@/lib/members/service";
import { revalidatePath } from "next/cache";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { chooseWorkspace, optional, required } from "../form-fields";

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
    memberOperations.inviteMember,
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
  const result = await dashboardAction(
    memberOperations.changeMemberRole,
    { role: required(form, "role") },
    async (principal, body) => {
      const member = await changeRole(principal, id, body.role);
      const keyNote = member.api_key_revoked ? KEY_WENT_WITH_THEM : "";
      return `${member.email ?? "The member"} is now ${member.role}.${keyNote}${webhooksWentWithThem(member)}`;
    },
  );
  if (result.ok) revalidatePath("/dashboard/members");
  return result;
}

export async function removeMemberAction(_previous: MemberState, form: FormData): Promise<MemberState> {
  const id = required(form, "id");
  const result = await dashboardAction(memberOperations.removeMember, undefined, async (principal) => {
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
  const result = await dashboardAction(memberOperations.resendInvitation, undefined, async (principal) => {
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
  const result = await dashboardAction(memberOperations.acceptInvitation, undefined, (principal) =>
    acceptInvitation(principal, token),
  );
  if (!result.ok) return result;
  await chooseWorkspace(result.value.workspace.id);
  redirect("/dashboard");
}
