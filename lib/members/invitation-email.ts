import { config } from "@/lib/config";
import type { OutgoingEmail } from "@/lib/email";
import { escapeHtml } from "@/lib/http/html";
import { workspaceInEmail } from "@/lib/workspaces/names";
import type { Role } from "@/lib/workspaces/types";

export function invitationUrl(token: string): string {
  return `${config().BASE_URL}/invite/${token}`;
}

const ROLE_WORDS: Record<Role, string> = {
  owner: "an owner",
  admin: "an admin",
  member: "a member",
  viewer: "a viewer (read-only)",
};

type Invitation = {
  email: string;
  role: Role;
  workspaceName: string;
  inviterEmail: string | null;
  token: string;
  expiresAt: Date;
};

/**
 * The message an invited person receives: who invited them, to what, the link and when it expires.
 * The workspace's name is only quoted in the body (never the Subject), and left out when it
 * carries an address (lib/workspaces/names.ts).
 */
export function invitationEmail(invitation: Invitation): OutgoingEmail {
  const url = invitationUrl(invitation.token);
  const inviter = invitation.inviterEmail ?? "A member";
  const expires = invitation.expiresAt.toUTCString();
  const workspace = workspaceInEmail(invitation.workspaceName);
  const text = [
    `${inviter} invited you to join ${workspace} on Permalink as ${ROLE_WORDS[invitation.role]}.`,
    "",
    `Accept the invitation: ${url}`,
    "",
    `Sign in with this address (${invitation.email}) to accept. The link works once and expires on ${expires}.`,
    "If you did not expect this invitation, ignore this message.",
  ].join("\n");
  const html = [
    `<p>${escapeHtml(inviter)} invited you to join ${escapeHtml(workspace)} on Permalink as ${ROLE_WORDS[invitation.role]}.</p>`,
    `<p><a href="${escapeHtml(url)}">Accept the invitation</a></p>`,
    `<p>Sign in with this address (${escapeHtml(invitation.email)}) to accept. The link works once ` +
      `and expires on ${escapeHtml(expires)}.</p>`,
    "<p>If you did not expect this invitation, ignore this message.</p>",
  ].join("\n");
  return { to: invitation.email, subject: "You're invited to a workspace on Permalink", text, html };
}
