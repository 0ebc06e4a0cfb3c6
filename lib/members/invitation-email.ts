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

/** Who invited whom to what, the same words in the e-mail and on the invitation's page. */
export function invitationSentence(invitation: Pick<Invitation, "inviterEmail" | "workspaceName" | "role">): string {
  const inviter = invitation.inviterEmail ?? "A member";
  return `${inviter} invited you to join ${workspaceInEmail(invitation.workspaceName)} on Permalink as ${ROLE_WORDS[invitation.role]}.`;
}

/**
 * The message an invited person receives: who invited them, to what, the link and when it expires.
 * The workspace's name is only quoted in the body (never the Subject), and left out when it
 * carries an address (lib/workspaces/names.ts).
 */
export function invitationEmail(invitation: Invitation): OutgoingEmail {
  const url = invitationUrl(invitation.token);
  const expires = invitation.expiresAt.toUTCString();
  const sentence = invitationSentence(invitation);
  const text = [
    sentence,
    "",
    `Accept the invitation: ${url}`,
    "",
    `Sign in with this address (${invitation.email}) to accept. The link works once and expires on ${expires}.`,
    "If you did not expect this invitation, ignore this message.",
  ].join("\n");
  const html = [
    `<p>${escapeHtml(sentence)}</p>`,
    `<p><a href="${escapeHtml(url)}">Accept the invitation</a></p>`,
    `<p>Sign in with this address (${escapeHtml(invitation.email)}) to accept. The link works once ` +
      `and expires on ${escapeHtml(expires)}.</p>`,
    "<p>If you did not expect this invitation, ignore this message.</p>",
  ].join("\n");
  return { to: invitation.email, subject: "You're invited to a workspace on Permalink", text, html };
}
