import { normaliseEmail } from "@/lib/auth/email";
import { requireInviteEntitlement } from "@/lib/billing/entitlement";
import { clock, DAY_MS } from "@/lib/clock";
import { config } from "@/lib/config";
import { EMAIL_NOT_CONFIGURED, emailAvailable, sendEmail } from "@/lib/email";
import { DomainError, forbidden, notFound } from "@/lib/http/errors";
import { announceEvent } from "@/lib/webhooks/outbox";
import { can, requirePermission } from "@/lib/workspaces/permissions";
import type { Principal, Role } from "@/lib/workspaces/types";
import { invitationEmail, invitationSentence, invitationUrl } from "./invitation-email";
import {
  type Member,
  NO_SUCH_MEMBER,
  OWNERS_ONLY,
  presentInvitation,
  presentMembership,
  requireManager,
  type SessionPrincipal,
} from "./member";
import type { InviteMemberInput } from "./schemas";
import type { InvitationRow } from "./store";
import * as store from "./store";
import { hashInvitationToken, newInvitationToken } from "./tokens";

/** Invitation e-mails (invitations and re-sends) one workspace may send a UTC day: a team's onboarding, not a mailing list. */
export const INVITATIONS_PER_WORKSPACE_PER_DAY = 50;

/**
 * Invites an address: records the invitation (its token stored only as a hash), then e-mails the
 * link. No transaction waits for the mail server (a slow one would hold database connections the
 * redirects need); when the send fails the invitation is withdrawn again, so none is left that
 * nobody received. When no mail server is configured (development only) the link is logged and
 * returned as invite_url; in production without one, nothing is written and the answer is a 503.
 */
export async function inviteMember(principal: Principal, input: InviteMemberInput): Promise<Member & { invite_url?: string }> {
  const inviter = requireManager(principal, "members.invite", "Only an owner or admin of this workspace can invite people.");
  const { now, token, context } = await prepareInvitationSend(principal, inviter, input.role);
  const invitation = await store.insertInvitation({
    workspaceId: principal.workspaceId,
    email: input.email,
    role: input.role,
    tokenHash: hashInvitationToken(token),
    invitedByUserId: inviter.userId,
    now,
    expiresAt: expiryFrom(now),
  });
  if (!invitation) throw await duplicateInvitation(principal.workspaceId, input.email);
  try {
    return { ...presentInvitation(invitation), ...(await deliver(invitation, context, token)) };
  } catch (error) {
    await store.withdrawUnsentInvitation(invitation.id);
    throw error;
  }
}

/**
 * What sending an invitation e-mail takes, the same for a first send and a re-send: only owners
 * offer the owner role, e-mail is configured, the workspace's plan allows inviting, and the send
 * counts against the workspace's daily cap. Answers the send's time, its new link's token and the
 * message's context.
 */
async function prepareInvitationSend(
  principal: Principal,
  inviter: SessionPrincipal,
  role: Member["role"],
): Promise<{ now: Date; token: string; context: MessageContext }> {
  if (role === "owner") requirePermission(principal, "members.manage_owners", OWNERS_ONLY);
  if (!emailAvailable()) throw new DomainError("not_configured", EMAIL_NOT_CONFIGURED);
  await requireInviteEntitlement(principal.workspaceId);
  const now = new Date(clock().now());
  await takeInvitationSend(principal.workspaceId, now);
  return { now, token: newInvitationToken(), context: await messageContext(principal.workspaceId, inviter) };
}

/**
 * Re-sends an invitation: a new link valid INVITATION_TTL_DAYS from now, under a new invitation
 * id; the previous link answers 410 (links are stored only as hashes, so it cannot be re-sent).
 * The message goes out first and the replacement is recorded after, so a failed send leaves the
 * previous link working. Should the invitation be accepted or revoked in between, the new link
 * answers 410 like any withdrawn one and the caller gets 404.
 */
export async function resendInvitation(principal: Principal, id: string): Promise<Member & { invite_url?: string }> {
  const inviter = requireManager(
    principal,
    "members.invite",
    "Only an owner or admin of this workspace can re-send invitations.",
  );
  const previous = await findInvitationOrExplain(principal.workspaceId, id);
  const { now, token, context } = await prepareInvitationSend(principal, inviter, previous.role);
  const expiresAt = expiryFrom(now);
  const delivered = await deliver({ ...previous, expiresAt }, context, token);
  const replacement = await store.replaceInvitation({
    previous,
    tokenHash: hashInvitationToken(token),
    invitedByUserId: inviter.userId,
    now,
    expiresAt,
  });
  if (!replacement) throw notFound(NO_SUCH_MEMBER);
  return { ...presentInvitation(replacement), ...delivered };
}

/** The role a pending invitation offers (the members service's role change, for an invitation's id). Only owners offer or withdraw the owner role. */
export async function changeInvitationRole(principal: Principal, id: string, role: Role): Promise<Member> {
  const invitation = await findInvitationOrExplain(principal.workspaceId, id);
  if (invitation.role === "owner" || role === "owner") requirePermission(principal, "members.manage_owners", OWNERS_ONLY);
  const changed = await store.changeInvitationRole(principal.workspaceId, id, role, can(principal, "members.manage_owners"));
  if (!changed) throw notFound(NO_SUCH_MEMBER);
  return presentInvitation(changed);
}

/** Revokes a pending invitation (the members service's removal, for an invitation's id): its link answers 410 from now on. */
export async function revokeInvitation(principal: Principal, id: string): Promise<void> {
  requirePermission(principal, "members.invite", "Only an owner or admin of this workspace can revoke invitations.");
  const invitation = await findInvitationOrExplain(principal.workspaceId, id);
  if (invitation.role === "owner") requirePermission(principal, "members.manage_owners", OWNERS_ONLY);
  const revoked = await store.revokeInvitation(
    principal.workspaceId,
    id,
    new Date(clock().now()),
    can(principal, "members.manage_owners"),
  );
  if (!revoked) throw notFound(NO_SUCH_MEMBER);
}

/**
 * Accepts an invitation with the session of the invited address (compared in the normalised
 * spelling of lib/auth/email.ts; an external provider's address counts only when it vouches for
 * it): 200 and a membership. Unknown link → 404; used, revoked or expired → 410; another
 * address → 403.
 */
export async function acceptInvitation(principal: Principal, token: string) {
  if (principal.kind !== "session") {
    throw forbidden("Accept an invitation signed in as the invited person (a session token); an API key cannot join workspaces.");
  }
  const invitation = await findInvitationByToken(token);
  const now = new Date(clock().now());
  requireStillUsable(invitation, now);
  const user = await store.findUserEmail(principal.userId);
  const address = user.emailVerified && user.email ? normaliseEmail(user.email) : null;
  if (address === null || address !== normaliseEmail(invitation.email)) {
    throw forbidden("This invitation was sent to another e-mail address: sign in with the address it was sent to.");
  }
  const { accepted } = await store.acceptInvitation(invitation.id, principal.userId, now, (tx, joined) =>
    announceEvent(
      tx,
      invitation.workspaceId,
      "member.joined",
      presentMembership({ ...joined, userId: principal.userId, email: user.email, createdAt: now }),
    ),
  );
  if (!accepted) throw gone("This invitation has just been used, revoked or has expired; ask for a new one.");
  const [workspace, membership] = await Promise.all([
    store.workspaceSummary(invitation.workspaceId),
    store.findMembershipOfUser(invitation.workspaceId, principal.userId),
  ]);
  if (!membership) throw new Error("A membership created a moment ago could not be read back.");
  return {
    workspace: {
      id: workspace.id,
      name: workspace.name,
      kind: workspace.kind,
      role: membership.role,
      created_at: workspace.createdAt.getTime(),
    },
    member: presentMembership(membership),
  };
}

/** What an invitation link offers while it can be accepted; once it cannot, only why. */
export type InvitationOutline =
  | {
      /** "ann@example.com invited you to join the workspace "Acme" on Permalink as a member." */
      sentence: string;
      /** The address the invitation was sent to: the one to sign in with. */
      email: string;
      expiresAt: Date;
      unusable: null;
    }
  | { unusable: string };

/**
 * What an invitation link offers, for its page before and after sign-in. The token is the
 * credential: whoever holds the e-mail's link may read what it offers, as they could in the
 * e-mail, while it can be accepted; a used, revoked or expired link (one forwarded or left in a
 * history) says only why it no longer works. Unknown link → 404.
 */
export async function describeInvitation(token: string): Promise<InvitationOutline> {
  const invitation = await findInvitationByToken(token);
  try {
    requireStillUsable(invitation, new Date(clock().now()));
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { unusable: error.message };
  }
  const [workspace, inviter] = await Promise.all([
    store.workspaceSummary(invitation.workspaceId),
    invitation.invitedByUserId ? store.findUserEmail(invitation.invitedByUserId) : null,
  ]);
  return {
    sentence: invitationSentence({ inviterEmail: inviter?.email ?? null, workspaceName: workspace.name, role: invitation.role }),
    email: invitation.email,
    expiresAt: invitation.expiresAt,
    unusable: null,
  };
}

async function findInvitationByToken(token: string): Promise<InvitationRow> {
  const invitation = await store.findInvitationByTokenHash(hashInvitationToken(token));
  if (!invitation)
    throw notFound("This invitation link is not valid: check that it was copied whole, or ask for a new invitation.");
  return invitation;
}

function requireStillUsable(invitation: InvitationRow, now: Date): void {
  if (invitation.acceptedAt) throw gone("This invitation has already been used; each invitation link works once.");
  if (invitation.revokedAt) throw gone("This invitation was revoked (or replaced by a newer one); ask for a new invitation.");
  if (invitation.expiresAt <= now)
    throw gone("This invitation has expired; ask the workspace's owner or an admin to re-send it.");
}

function gone(message: string): DomainError {
  return new DomainError("gone", message);
}

async function findInvitationOrExplain(workspaceId: string, id: string): Promise<InvitationRow> {
  const invitation = id.startsWith("inv_") ? await store.findPendingInvitation(workspaceId, id) : null;
  if (invitation) return invitation;
  if (await store.findMembership(workspaceId, id))
    throw new DomainError("conflict", "This id is a member, not an invitation: there is nothing to re-send.");
  throw notFound(NO_SUCH_MEMBER);
}

async function duplicateInvitation(workspaceId: string, email: string): Promise<DomainError> {
  if (await store.isMemberAddress(workspaceId, email))
    return new DomainError("conflict", "This address already belongs to a member of this workspace.");
  return new DomainError(
    "conflict",
    "This address already has a pending invitation to this workspace: re-send it (POST /api/members/{id}/resend) or revoke it.",
  );
}

async function messageContext(workspaceId: string, inviter: SessionPrincipal): Promise<MessageContext> {
  const [workspace, sender] = await Promise.all([store.workspaceSummary(workspaceId), store.findUserEmail(inviter.userId)]);
  return { workspaceName: workspace.name, inviterEmail: sender.email };
}

/** Sends the invitation's e-mail; where it was only logged (development), the link goes back to the inviter. */
async function deliver(
  invitation: Pick<InvitationRow, "email" | "role" | "expiresAt">,
  context: MessageContext,
  token: string,
): Promise<{ invite_url?: string }> {
  const message = invitationEmail({
    ...context,
    email: invitation.email,
    role: invitation.role,
    token,
    expiresAt: invitation.expiresAt,
  });
  const delivery = await sendEmail(message);
  return delivery.via === "log" ? { invite_url: invitationUrl(token) } : {};
}

/**
 * Spends one of the workspace's invitation e-mails for today (UTC), in the database so every
 * instance shares the count; over the cap, 429 until the next UTC day. An e-mail the mail server
 * then refuses still counts: the cap bounds attempts.
 */
async function takeInvitationSend(workspaceId: string, now: Date): Promise<void> {
  const day = now.toISOString().slice(0, 10);
  if (await store.takeInvitationSend(workspaceId, day, INVITATIONS_PER_WORKSPACE_PER_DAY)) return;
  const nextDay = Date.parse(`${day}T00:00:00Z`) + DAY_MS;
  throw new DomainError(
    "rate_limited",
    `This workspace has reached its limit of ${INVITATIONS_PER_WORKSPACE_PER_DAY} invitations a day; invite more after midnight UTC.`,
    { "Retry-After": String(Math.ceil((nextDay - now.getTime()) / 1000)) },
  );
}

function expiryFrom(now: Date): Date {
  return new Date(now.getTime() + config().INVITATION_TTL_DAYS * DAY_MS);
}

type MessageContext = { workspaceName: string; inviterEmail: string | null };
