import { normaliseEmail } from "@/lib/auth/email";
import { liveKeyClaimer, revokeKeyClaimedBy } from "@/lib/auth/store";
import { requireInviteEntitlement } from "@/lib/billing/entitlement";
import { clock, DAY_MS } from "@/lib/clock";
import { config } from "@/lib/config";
import { type DbClient, transaction } from "@/lib/db/client";
import { EMAIL_NOT_CONFIGURED, emailAvailable, type OutgoingEmail, sendEmail } from "@/lib/email";
import { DomainError, forbidden, notFound } from "@/lib/http/errors";
import { log } from "@/lib/log";
import { revokeGrantsOfPerson } from "@/lib/oauth/store";
import { endpointCreators, type RetiredEndpoints, retireEndpointsOfPerson } from "@/lib/webhooks/departures";
import { announceEvent } from "@/lib/webhooks/outbox";
import { can, requirePermission, roleMay } from "@/lib/workspaces/permissions";
import { findWorkspaceManagers, type WorkspaceManagers } from "@/lib/workspaces/store";
import type { Principal, Role } from "@/lib/workspaces/types";
import { invitationEmail, invitationSentence, invitationUrl } from "./invitation-email";
import { type KeyHolderChange, keyRevokedEmail } from "./key-revoked-email";
import type { InviteMemberInput } from "./schemas";
import type { InvitationRow, MembershipRow } from "./store";
import * as store from "./store";
import { hashInvitationToken, newInvitationToken } from "./tokens";
import { webhooksRetiredEmail } from "./webhooks-retired-email";

type SessionPrincipal = Extract<Principal, { kind: "session" }>;

export type Member = {
  id: string;
  email: string | null;
  role: Role;
  status: "active" | "invited" | "expired";
  created_at: number;
};

/** What went with a person who left the workspace's management: their API key, their webhook endpoints' deliveries. */
type Departure = { api_key_revoked: boolean; webhooks_disabled: string[]; webhooks_rotation_due: string[] };

/** A role change's answer: the member, and what went with their admin rights. */
export type RoleChange = Member & Departure;

/** A removal's answer: who left the list, and what went with them. */
export type Removal = { id: string } & Departure;

const NOTHING_WENT: Departure = { api_key_revoked: false, webhooks_disabled: [], webhooks_rotation_due: [] };

/** Invitation e-mails (invitations and re-sends) one workspace may send a UTC day: a team's onboarding, not a mailing list. */
export const INVITATIONS_PER_WORKSPACE_PER_DAY = 50;

const PEOPLE_NEED_A_PERSON =
  "An API key cannot manage people; invite, change roles and remove members with an owner's or admin's session token.";
const OWNERS_ONLY = "Only an owner can invite, promote, demote or remove an owner.";
const LAST_OWNER =
  "A workspace must keep at least one owner: make someone else an owner before this owner leaves or changes role.";
const PERSONAL_OWNER =
  "This is the member's personal workspace: they always stay its owner, so they cannot leave it, be removed or change role.";
const NO_SUCH_MEMBER = "No member or pending invitation with this id exists in this workspace.";

/** Members first, then pending invitations (expired ones too, until re-sent or revoked), each oldest first. */
export async function listMembers(principal: Principal): Promise<Member[]> {
  requirePermission(principal, "members.read", "Your role in this workspace does not allow listing members.");
  const [memberships, invitations] = await Promise.all([
    store.listMemberships(principal.workspaceId),
    store.listPendingInvitations(principal.workspaceId),
  ]);
  return [...memberships.map(presentMembership), ...invitations.map(presentInvitation)];
}

/** The caller's own member id in the workspace (the id leaving removes); null for an API key. */
export async function ownMemberId(principal: Principal): Promise<string | null> {
  if (principal.kind !== "session") return null;
  return (await store.findMembershipOfUser(principal.workspaceId, principal.userId))?.id ?? null;
}

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

/**
 * Changes a member's role, or the role a pending invitation offers. Only owners make or unmake
 * owners. A member demoted below admin who claimed the workspace's API key takes it with them:
 * the key is revoked in the same transaction and the owners are told.
 */
export async function changeRole(principal: Principal, id: string, role: Role): Promise<RoleChange> {
  const manager = requireManager(principal, "members.change_role", "Only an owner or admin of this workspace can change roles.");
  if (id.startsWith("inv_")) {
    const invitation = await findInvitationOrExplain(principal.workspaceId, id);
    if (invitation.role === "owner" || role === "owner") requirePermission(principal, "members.manage_owners", OWNERS_ONLY);
    const changed = await store.changeInvitationRole(principal.workspaceId, id, role, can(principal, "members.manage_owners"));
    if (!changed) throw notFound(NO_SUCH_MEMBER);
    return { ...presentInvitation(changed), ...NOTHING_WENT };
  }
  const membership = await store.findMembership(principal.workspaceId, id);
  if (!membership) throw notFound(NO_SUCH_MEMBER);
  if (membership.role === role) return { ...presentMembership(membership), ...NOTHING_WENT };
  if (membership.role === "owner" || role === "owner") requirePermission(principal, "members.manage_owners", OWNERS_ONLY);
  const change = { workspaceId: principal.workspaceId, id, role, mayTouchOwners: can(principal, "members.manage_owners") };
  const outcome = await transaction(async (tx) => {
    if (!(await store.updateMembershipRole(tx, change))) return null;
    const keyRevoked = !roleMay(role, "api_key.claim") && (await revokeKeyOf(tx, manager, membership));
    const endpoints = roleMay(role, "webhooks.manage") ? NO_ENDPOINTS : await retireEndpointsOf(tx, manager, membership);
    return { keyRevoked, endpoints };
  });
  if (!outcome) throw await refusalFor(principal, membership);
  return {
    ...presentMembership({ ...membership, role }),
    ...(await tellOwners(principal.workspaceId, membership, "demoted", outcome)),
  };
}

/**
 * Removes a member (owners and admins; only an owner removes an owner), lets anyone leave (their
 * own id), or revokes a pending invitation. The last owner stays, and so does a personal
 * workspace's own user. The member's links stay with the workspace; the API key they claimed does
 * not: it is revoked in the same transaction and the owners are told. So are the apps they
 * connected with OAuth (their grants end in the same transaction).
 */
export async function removeMember(principal: Principal, id: string): Promise<Removal> {
  if (principal.kind !== "session") throw forbidden(PEOPLE_NEED_A_PERSON);
  if (id.startsWith("inv_")) {
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
    return { id, ...NOTHING_WENT };
  }
  const membership = await store.findMembership(principal.workspaceId, id);
  if (!membership) throw notFound(NO_SUCH_MEMBER);
  const leaving = membership.userId === principal.userId;
  if (!leaving) {
    requirePermission(
      principal,
      "members.remove",
      "Only an owner or admin of this workspace can remove members; anyone can leave.",
    );
    if (membership.role === "owner") requirePermission(principal, "members.manage_owners", OWNERS_ONLY);
  }
  const removal = { workspaceId: principal.workspaceId, id, mayTouchOwners: leaving || can(principal, "members.manage_owners") };
  const outcome = await transaction(async (tx) => {
    if (!(await store.deleteMembership(tx, removal))) return null;
    // Before the announcement: the outbox writes no message for an endpoint disabled here.
    const endpoints = await retireEndpointsOf(tx, principal, membership);
    await announceEvent(tx, principal.workspaceId, "member.removed", presentMembership(membership));
    // The apps they connected act as them: they end with the membership.
    await revokeGrantsOfPerson(tx, principal.workspaceId, membership.userId, new Date(clock().now()));
    return { keyRevoked: await revokeKeyOf(tx, principal, membership), endpoints };
  });
  if (!outcome) throw await refusalFor(principal, membership);
  return { id, ...(await tellOwners(principal.workspaceId, membership, leaving ? "left" : "removed", outcome)) };
}

/** The member id of whoever claimed the workspace's live API key (the members page warns before removing them); null when none did. */
export async function keyHolderMemberId(principal: Principal): Promise<string | null> {
  const claimer = await liveKeyClaimer(principal.workspaceId);
  return claimer ? ((await store.findMembershipOfUser(principal.workspaceId, claimer))?.id ?? null) : null;
}

/** The member ids of whoever created a live webhook endpoint (the members page warns before removing or demoting them). */
export async function endpointCreatorMemberIds(principal: Principal): Promise<string[]> {
  const creators = new Set(await endpointCreators(principal.workspaceId));
  const memberships = await store.listMemberships(principal.workspaceId);
  return memberships.filter((membership) => creators.has(membership.userId)).map((membership) => membership.id);
}

const NO_ENDPOINTS: RetiredEndpoints = { disabled: [], rotationDue: [] };

function retireEndpointsOf(tx: DbClient, actor: SessionPrincipal, membership: MembershipRow): Promise<RetiredEndpoints> {
  return retireEndpointsOfPerson(tx, { workspaceId: actor.workspaceId, userId: membership.userId, now: new Date(clock().now()) });
}

/** Tells the owners what went with the person (once each change has committed), and answers it. */
async function tellOwners(
  workspaceId: string,
  membership: MembershipRow,
  change: KeyHolderChange,
  { keyRevoked, endpoints }: { keyRevoked: boolean; endpoints: RetiredEndpoints },
): Promise<Departure> {
  const person = membership.email ?? "the member";
  if (keyRevoked)
    await emailOwners(workspaceId, (owners) => keyRevokedEmail(owners, person, change), "the notice of a revoked API key");
  if (endpoints.disabled.length > 0 || endpoints.rotationDue.length > 0)
    await emailOwners(
      workspaceId,
      (owners) => webhooksRetiredEmail(owners, person, change, endpoints),
      "the notice of disabled webhooks",
    );
  return {
    api_key_revoked: keyRevoked,
    webhooks_disabled: endpoints.disabled.map((endpoint) => endpoint.id),
    webhooks_rotation_due: endpoints.rotationDue.map((endpoint) => endpoint.id),
  };
}

function revokeKeyOf(tx: DbClient, actor: SessionPrincipal, membership: MembershipRow): Promise<boolean> {
  return revokeKeyClaimedBy(tx, {
    workspaceId: actor.workspaceId,
    claimedByUserId: membership.userId,
    revokedByUserId: actor.userId,
    now: new Date(clock().now()),
  });
}

/**
 * E-mails the owners what went with a person. The change has committed and stands whatever the
 * mail server says, so a failed send is logged, not answered.
 */
async function emailOwners(
  workspaceId: string,
  compose: (owners: WorkspaceManagers) => OutgoingEmail,
  notice: string,
): Promise<void> {
  const owners = await findWorkspaceManagers(workspaceId, ["owner"]);
  if (!owners || owners.addresses.length === 0) return;
  try {
    await sendEmail(compose(owners));
  } catch (error) {
    log().warn({ workspace: workspaceId, detail: (error as Error).message }, `${notice} was not sent`);
  }
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

/** People are managed only with a person's session, by a role the table allows. */
function requireManager(
  principal: Principal,
  action: "members.invite" | "members.change_role",
  refusal: string,
): SessionPrincipal {
  if (principal.kind !== "session") throw forbidden(PEOPLE_NEED_A_PERSON);
  requirePermission(principal, action, refusal);
  return principal;
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

/** Why the conditional change touched nothing: a personal workspace's user, the last owner, or the row went away. */
async function refusalFor(principal: Principal, membership: MembershipRow): Promise<DomainError> {
  if (await store.isPersonalWorkspaceOf(principal.workspaceId, membership.userId))
    return new DomainError("conflict", PERSONAL_OWNER);
  if (!(await store.findMembership(principal.workspaceId, membership.id))) return notFound(NO_SUCH_MEMBER);
  if (membership.role === "owner" && (await store.countOwners(principal.workspaceId)) <= 1)
    return new DomainError("conflict", LAST_OWNER);
  return new DomainError("conflict", "This member changed meanwhile; read the member list and try again.");
}

type MessageContext = { workspaceName: string; inviterEmail: string | null };

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

function presentMembership(membership: MembershipRow): Member {
  return {
    id: membership.id,
    email: membership.email,
    role: membership.role,
    status: "active",
    created_at: membership.createdAt.getTime(),
  };
}

function presentInvitation(invitation: InvitationRow): Member {
  const expired = invitation.expiresAt.getTime() <= clock().now();
  return {
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    status: expired ? "expired" : "invited",
    created_at: invitation.createdAt.getTime(),
  };
}
