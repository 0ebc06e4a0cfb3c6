import { db, type DbClient, transaction } from "@/lib/db/client";
import { isRecordId, newId } from "@/lib/db/random";
import type { Role } from "@/lib/workspaces/types";

export type MembershipRow = { id: string; userId: string; role: Role; email: string | null; createdAt: Date };

export type InvitationRow = {
  id: string;
  workspaceId: string;
  email: string;
  role: Role;
  createdAt: Date;
  sentAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
  tokenHash: string;
  invitedByUserId: string | null;
};

const INVITATION_FIELDS = {
  id: true,
  workspaceId: true,
  email: true,
  role: true,
  createdAt: true,
  sentAt: true,
  expiresAt: true,
  acceptedAt: true,
  revokedAt: true,
  tokenHash: true,
  invitedByUserId: true,
} as const;

export async function listMemberships(workspaceId: string): Promise<MembershipRow[]> {
  const rows = await db().membership.findMany({
    where: { workspaceId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { id: true, userId: true, role: true, createdAt: true, user: { select: { email: true } } },
  });
  return rows.map(({ user, ...row }) => ({ ...row, email: user.email }));
}

/** Invitations neither accepted nor revoked, expired ones included (they can be re-sent). */
export function listPendingInvitations(workspaceId: string): Promise<InvitationRow[]> {
  return db().invitation.findMany({
    where: { workspaceId, acceptedAt: null, revokedAt: null },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: INVITATION_FIELDS,
  });
}

/** null too for an id no record can have: ids also arrive from dashboard forms, which the route wrapper's path check never sees. */
export async function findMembership(workspaceId: string, id: string): Promise<MembershipRow | null> {
  if (!isRecordId(id)) return null;
  const row = await db().membership.findFirst({
    where: { id, workspaceId },
    select: { id: true, userId: true, role: true, createdAt: true, user: { select: { email: true } } },
  });
  if (!row) return null;
  const { user, ...membership } = row;
  return { ...membership, email: user.email };
}

export async function findPendingInvitation(workspaceId: string, id: string): Promise<InvitationRow | null> {
  if (!isRecordId(id)) return null;
  return db().invitation.findFirst({ where: { id, workspaceId, acceptedAt: null, revokedAt: null }, select: INVITATION_FIELDS });
}

export function findInvitationByTokenHash(tokenHash: string): Promise<InvitationRow | null> {
  return db().invitation.findUnique({ where: { tokenHash }, select: INVITATION_FIELDS });
}

/** Whether a member of the workspace signs in with this (normalised, provider-vouched) address. */
export async function isMemberAddress(workspaceId: string, email: string): Promise<boolean> {
  const count = await db().membership.count({ where: { workspaceId, user: { email, emailVerified: true } } });
  return count > 0;
}

type NewInvitation = {
  workspaceId: string;
  email: string;
  role: Role;
  tokenHash: string;
  invitedByUserId: string;
  now: Date;
  expiresAt: Date;
};

/**
 * Records an invitation unless the address already belongs to a member or has a pending
 * invitation; null then. An expired pending invitation to the address is retired first, so a
 * fresh invite replaces it. The partial unique index on pending (workspace_id, email) decides
 * between concurrent invites of one address: exactly one inserts.
 */
export async function insertInvitation(invitation: NewInvitation): Promise<InvitationRow | null> {
  const { workspaceId, email, role, tokenHash, invitedByUserId, now, expiresAt } = invitation;
  await db().invitation.updateMany({
    where: { workspaceId, email, acceptedAt: null, revokedAt: null, expiresAt: { lte: now } },
    data: { revokedAt: now },
  });
  const id = newId("inv");
  const inserted = await db().$queryRaw<{ id: string }[]>`
    INSERT INTO invitations (id, workspace_id, email, role, token_hash, invited_by_user_id, created_at, sent_at, expires_at)
    SELECT ${id}, ${workspaceId}, ${email}, ${role}::"Role", ${tokenHash}, ${invitedByUserId}, ${now}, ${now}, ${expiresAt}
    WHERE NOT EXISTS (
      SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.workspace_id = ${workspaceId} AND u.email = ${email} AND u.email_verified
    )
    ON CONFLICT (workspace_id, email) WHERE accepted_at IS NULL AND revoked_at IS NULL DO NOTHING
    RETURNING id`;
  if (inserted.length === 0) return null;
  return db().invitation.findUniqueOrThrow({ where: { id }, select: INVITATION_FIELDS });
}

/**
 * Takes one of the workspace's invitation e-mails for this UTC day, or refuses (false) when `cap`
 * are spent. One statement decides: concurrent sends queue on the day's row and the WHERE sees
 * the count the previous one left. Only today's row matters, so the workspace's earlier days go in
 * the same statement: the table holds at most a row or two per workspace.
 */
export async function takeInvitationSend(workspaceId: string, day: string, cap: number): Promise<boolean> {
  const taken = await db().$queryRaw<{ sent: number }[]>`
    WITH earlier AS (DELETE FROM invitation_days WHERE workspace_id = ${workspaceId} AND day < ${day}::date)
    INSERT INTO invitation_days (workspace_id, day, sent) VALUES (${workspaceId}, ${day}::date, 1)
    ON CONFLICT (workspace_id, day) DO UPDATE SET sent = invitation_days.sent + 1 WHERE invitation_days.sent < ${cap}
    RETURNING sent`;
  return taken.length > 0;
}

/** Deletes an invitation whose e-mail never went out (nobody holds its link), unless it was used meanwhile. */
export async function withdrawUnsentInvitation(id: string): Promise<void> {
  await db().invitation.deleteMany({ where: { id, acceptedAt: null } });
}

type Replacement = { previous: InvitationRow; tokenHash: string; invitedByUserId: string; now: Date; expiresAt: Date };

/**
 * A re-send: the pending invitation is revoked (its link then answers 410) and a new one with the
 * same address and role takes its place, with a new id, token and expiry. Null when the previous
 * one was no longer pending.
 */
export function replaceInvitation({
  previous,
  tokenHash,
  invitedByUserId,
  now,
  expiresAt,
}: Replacement): Promise<InvitationRow | null> {
  return db().$transaction(async (tx) => {
    const { count } = await tx.invitation.updateMany({
      where: { id: previous.id, workspaceId: previous.workspaceId, acceptedAt: null, revokedAt: null },
      data: { revokedAt: now },
    });
    if (count === 0) return null;
    return tx.invitation.create({
      data: {
        id: newId("inv"),
        workspaceId: previous.workspaceId,
        email: previous.email,
        role: previous.role,
        tokenHash,
        invitedByUserId,
        createdAt: previous.createdAt,
        sentAt: now,
        expiresAt,
      },
      select: INVITATION_FIELDS,
    });
  });
}

/**
 * Only an owner may touch an invitation that offers ownership: the condition sits in the
 * statement, so an invitation raised to owner after the caller read it is not changed.
 */
function pendingInvitation(workspaceId: string, id: string, mayTouchOwners: boolean) {
  return { id, workspaceId, acceptedAt: null, revokedAt: null, ...(mayTouchOwners ? {} : { role: { not: "owner" as const } }) };
}

export async function changeInvitationRole(
  workspaceId: string,
  id: string,
  role: Role,
  mayTouchOwners: boolean,
): Promise<InvitationRow | null> {
  const { count } = await db().invitation.updateMany({
    where: pendingInvitation(workspaceId, id, mayTouchOwners),
    data: { role },
  });
  return count === 0 ? null : db().invitation.findUniqueOrThrow({ where: { id }, select: INVITATION_FIELDS });
}

export async function revokeInvitation(workspaceId: string, id: string, now: Date, mayTouchOwners: boolean): Promise<boolean> {
  const { count } = await db().invitation.updateMany({
    where: pendingInvitation(workspaceId, id, mayTouchOwners),
    data: { revokedAt: now },
  });
  return count > 0;
}

/**
 * Every change that could leave a workspace without an owner (a demotion, a removal, someone
 * leaving) runs inside the caller's transaction as: lock the workspace's row, then one
 * conditional statement. The statement decides "another owner remains" itself; the lock makes
 * concurrent changes to one workspace's owners take turns, so under READ COMMITTED each statement
 * sees the previous one's result (two owners demoting each other at once cannot both succeed). It
 * also refuses to touch the membership of a personal workspace's own user, who is always its owner.
 */
async function lockOwners(tx: DbClient, workspaceId: string): Promise<void> {
  await tx.$queryRaw`SELECT id FROM workspaces WHERE id = ${workspaceId} FOR UPDATE`;
}

/**
 * Sets a member's role, in the caller's transaction; null when refused (last owner, personal
 * workspace's user, or an owner the caller may not touch) or gone.
 */
export async function updateMembershipRole(
  tx: DbClient,
  change: { workspaceId: string; id: string; role: Role; mayTouchOwners: boolean },
): Promise<{ id: string } | null> {
  const { workspaceId, id, role, mayTouchOwners } = change;
  await lockOwners(tx, workspaceId);
  const rows = await tx.$queryRaw<{ id: string }[]>`
    UPDATE memberships m SET role = ${role}::"Role"
    WHERE m.id = ${id} AND m.workspace_id = ${workspaceId}
      AND (${mayTouchOwners} OR m.role <> 'owner')
      AND (${role} = 'owner' OR m.role <> 'owner'
           OR EXISTS (SELECT 1 FROM memberships o WHERE o.workspace_id = m.workspace_id AND o.role = 'owner' AND o.id <> m.id))
      AND NOT EXISTS (SELECT 1 FROM workspaces w WHERE w.id = m.workspace_id AND w.personal_for_user_id = m.user_id)
    RETURNING m.id`;
  return rows[0] ?? null;
}

/**
 * Removes a membership, in the caller's transaction; null when refused (last owner, personal
 * workspace's user, or an owner the caller may not touch) or gone.
 */
export async function deleteMembership(
  tx: DbClient,
  removal: { workspaceId: string; id: string; mayTouchOwners: boolean },
): Promise<{ id: string } | null> {
  const { workspaceId, id, mayTouchOwners } = removal;
  await lockOwners(tx, workspaceId);
  const rows = await tx.$queryRaw<{ id: string }[]>`
    DELETE FROM memberships m
    WHERE m.id = ${id} AND m.workspace_id = ${workspaceId}
      AND (${mayTouchOwners} OR m.role <> 'owner')
      AND (m.role <> 'owner'
           OR EXISTS (SELECT 1 FROM memberships o WHERE o.workspace_id = m.workspace_id AND o.role = 'owner' AND o.id <> m.id))
      AND NOT EXISTS (SELECT 1 FROM workspaces w WHERE w.id = m.workspace_id AND w.personal_for_user_id = m.user_id)
    RETURNING m.id`;
  return rows[0] ?? null;
}

export async function isPersonalWorkspaceOf(workspaceId: string, userId: string): Promise<boolean> {
  return (await db().workspace.count({ where: { id: workspaceId, personalForUserId: userId } })) > 0;
}

export async function countOwners(workspaceId: string): Promise<number> {
  return db().membership.count({ where: { workspaceId, role: "owner" } });
}

/**
 * Uses the invitation and makes the user a member, in one statement: the invitation is taken
 * only while pending and unexpired (so of two accepts exactly one counts), and the membership
 * keeps an existing one (someone who joined meanwhile stays as they are). `accepted` is false
 * when the invitation was used, revoked or expired by the time the statement ran.
 */
export async function acceptInvitation(
  invitationId: string,
  userId: string,
  now: Date,
  onJoined: (client: DbClient, membership: { id: string; role: Role }) => Promise<void>,
): Promise<{ accepted: boolean }> {
  const membershipId = newId("mem");
  return transaction(async (tx) => {
    const [result] = await tx.$queryRaw<{ accepted: number; role: Role | null; joined: boolean }[]>`
    WITH taken AS (
      UPDATE invitations SET accepted_at = ${now}, accepted_by_user_id = ${userId}
      WHERE id = ${invitationId} AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ${now}
      RETURNING workspace_id, role
    ), joined AS (
      INSERT INTO memberships (id, workspace_id, user_id, role, created_at)
      SELECT ${membershipId}, workspace_id, ${userId}, role, ${now} FROM taken
      ON CONFLICT (workspace_id, user_id) DO NOTHING
      RETURNING id
    )
    SELECT (SELECT count(*) FROM taken)::int AS accepted, (SELECT role FROM taken) AS role, EXISTS (SELECT 1 FROM joined) AS joined`;
    // Someone already a member keeps their membership: nobody joined, so nothing is announced.
    if (result?.joined && result.role) await onJoined(tx, { id: membershipId, role: result.role });
    return { accepted: (result?.accepted ?? 0) > 0 };
  });
}

export async function findUserEmail(userId: string): Promise<{ email: string | null; emailVerified: boolean }> {
  return db().user.findUniqueOrThrow({ where: { id: userId }, select: { email: true, emailVerified: true } });
}

export async function findMembershipOfUser(workspaceId: string, userId: string): Promise<MembershipRow | null> {
  const row = await db().membership.findUnique({
    where: { workspaceId_userId: { workspaceId, userId } },
    select: { id: true, userId: true, role: true, createdAt: true, user: { select: { email: true } } },
  });
  if (!row) return null;
  const { user, ...membership } = row;
  return { ...membership, email: user.email };
}

export async function workspaceSummary(workspaceId: string) {
  return db().workspace.findUniqueOrThrow({
    where: { id: workspaceId },
    select: { id: true, name: true, kind: true, createdAt: true },
  });
}
