import { liveKeyClaimer, revokeKeyClaimedBy } from "@/lib/auth/store";
import { clock } from "@/lib/clock";
import { type DbClient, transaction } from "@/lib/db/client";
import { type OutgoingEmail, sendEmail } from "@/lib/email";
import { DomainError, forbidden, notFound } from "@/lib/http/errors";
import { log } from "@/lib/log";
import { revokeGrantsOfPerson } from "@/lib/oauth/store";
import { endpointCreators, type RetiredEndpoints, retireEndpointsOfPerson } from "@/lib/webhooks/departures";
import { announceEvent } from "@/lib/webhooks/outbox";
import { can, requirePermission, roleMay } from "@/lib/workspaces/permissions";
import { findWorkspaceManagers, type WorkspaceManagers } from "@/lib/workspaces/store";
import type { Principal, Role } from "@/lib/workspaces/types";
import { changeInvitationRole, revokeInvitation } from "./invitations";
import { type KeyHolderChange, keyRevokedEmail } from "./key-revoked-email";
import {
  type Member,
  NO_SUCH_MEMBER,
  OWNERS_ONLY,
  PEOPLE_NEED_A_PERSON,
  presentInvitation,
  presentMembership,
  requireManager,
  type SessionPrincipal,
} from "./member";
import type { MembershipRow } from "./store";
import * as store from "./store";
import { webhooksRetiredEmail } from "./webhooks-retired-email";

/** What went with a person who left the workspace's management: their API key, their webhook endpoints' deliveries. */
type Departure = { api_key_revoked: boolean; webhooks_disabled: string[]; webhooks_rotation_due: string[] };

/** A role change's answer: the member, and what went with their admin rights. */
export type RoleChange = Member & Departure;

/** A removal's answer: who left the list, and what went with them. */
export type Removal = { id: string } & Departure;

const NOTHING_WENT: Departure = { api_key_revoked: false, webhooks_disabled: [], webhooks_rotation_due: [] };

const LAST_OWNER =
  "A workspace must keep at least one owner: make someone else an owner before this owner leaves or changes role.";
const PERSONAL_OWNER =
  "This is the member's personal workspace: they always stay its owner, so they cannot leave it, be removed or change role.";

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
 * Changes a member's role, or the role a pending invitation offers (./invitations.ts). Only owners make or unmake
 * owners. A member demoted below admin who claimed the workspace's API key takes it with them:
 * the key is revoked in the same transaction and the owners are told.
 */
export async function changeRole(principal: Principal, id: string, role: Role): Promise<RoleChange> {
  const manager = requireManager(principal, "members.change_role", "Only an owner or admin of this workspace can change roles.");
  if (id.startsWith("inv_")) return { ...(await changeInvitationRole(principal, id, role)), ...NOTHING_WENT };
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
    await revokeInvitation(principal, id);
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

/** Why the conditional change touched nothing: a personal workspace's user, the last owner, or the row went away. */
async function refusalFor(principal: Principal, membership: MembershipRow): Promise<DomainError> {
  if (await store.isPersonalWorkspaceOf(principal.workspaceId, membership.userId))
    return new DomainError("conflict", PERSONAL_OWNER);
  if (!(await store.findMembership(principal.workspaceId, membership.id))) return notFound(NO_SUCH_MEMBER);
  if (membership.role === "owner" && (await store.countOwners(principal.workspaceId)) <= 1)
    return new DomainError("conflict", LAST_OWNER);
  return new DomainError("conflict", "This member changed meanwhile; read the member list and try again.");
}
