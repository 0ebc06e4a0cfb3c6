import type { SessionIdentity } from "@/lib/auth/session-tokens";
import { db } from "@/lib/db/client";
import { isRecordId, newId } from "@/lib/db/random";
import type { Role } from "./types";

export type KnownUser = { userId: string; personalWorkspaceId: string };

/**
 * Finds the user behind a verified session, creating them with a personal workspace (as owner)
 * the first time they are seen. One statement inserts all three rows, so it is atomic; under
 * concurrent first requests ON CONFLICT on (issuer, subject) lets exactly one of them win.
 */
export async function ensureUser(identity: SessionIdentity): Promise<KnownUser> {
  const existing = await findUser(identity);
  if (existing) {
    await recordEmail(existing, identity);
    return { userId: existing.userId, personalWorkspaceId: existing.personalWorkspaceId };
  }
  const [userId, workspaceId, membershipId] = [newId("usr"), newId("ws"), newId("mem")];
  await db().$executeRaw`
    WITH new_user AS (
      INSERT INTO users (id, issuer, subject, email, email_verified)
      VALUES (${userId}, ${identity.issuer}, ${identity.subject}, ${identity.email}, ${identity.emailVerified})
      ON CONFLICT (issuer, subject) DO NOTHING
      RETURNING id
    ), new_workspace AS (
      INSERT INTO workspaces (id, name, kind, personal_for_user_id)
      SELECT ${workspaceId}, ${personalWorkspaceName(identity)}, 'personal', id FROM new_user
      RETURNING id, personal_for_user_id
    )
    INSERT INTO memberships (id, workspace_id, user_id, role)
    SELECT ${membershipId}, id, personal_for_user_id, 'owner' FROM new_workspace`;
  const created = await findUser(identity);
  if (!created) throw new Error("A user created a moment ago could not be read back.");
  return { userId: created.userId, personalWorkspaceId: created.personalWorkspaceId };
}

type FoundUser = KnownUser & { email: string | null; emailVerified: boolean };

async function findUser(identity: SessionIdentity): Promise<FoundUser | null> {
  const user = await db().user.findUnique({
    where: { issuer_subject: { issuer: identity.issuer, subject: identity.subject } },
    select: { id: true, email: true, emailVerified: true, personalWorkspace: { select: { id: true } } },
  });
  if (!user?.personalWorkspace) return null;
  return {
    userId: user.id,
    personalWorkspaceId: user.personalWorkspace.id,
    email: user.email,
    emailVerified: user.emailVerified,
  };
}

/** Keeps the e-mail and whether the provider vouches for it as the provider last said; writes only on a change. */
async function recordEmail(user: FoundUser, identity: SessionIdentity): Promise<void> {
  if (user.email === identity.email && user.emailVerified === identity.emailVerified) return;
  await db().user.update({ where: { id: user.userId }, data: { email: identity.email, emailVerified: identity.emailVerified } });
}

function personalWorkspaceName(identity: SessionIdentity): string {
  return identity.email ? `${identity.email}'s workspace` : "Personal workspace";
}

/** null too for a workspace id no record can have: it also comes from a cookie and the dashboard's switch form. */
export async function findRole(workspaceId: string, userId: string): Promise<Role | null> {
  if (!isRecordId(workspaceId)) return null;
  const membership = await db().membership.findUnique({
    where: { workspaceId_userId: { workspaceId, userId } },
    select: { role: true },
  });
  return membership?.role ?? null;
}

/**
 * Who hears about the workspace's operations (a custom domain whose DNS broke, its API key revoked):
 * its name, and its owners' (and by default admins') addresses.
 */
export type WorkspaceManagers = { workspaceName: string; addresses: string[] };

/**
 * The workspace's members in these roles that have an address their identity provider vouched for
 * (an unverified address might be someone else's mailbox), oldest membership first; null when the
 * workspace is gone.
 */
export async function findWorkspaceManagers(
  workspaceId: string,
  roles: readonly Role[] = ["owner", "admin"],
): Promise<WorkspaceManagers | null> {
  const workspace = await db().workspace.findUnique({
    where: { id: workspaceId },
    select: {
      name: true,
      memberships: {
        where: { role: { in: [...roles] }, user: { emailVerified: true, email: { not: null } } },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        select: { user: { select: { email: true } } },
      },
    },
  });
  if (!workspace) return null;
  return {
    workspaceName: workspace.name,
    addresses: workspace.memberships.flatMap(({ user }) => (user.email ? [user.email] : [])),
  };
}

const WORKSPACE_FIELDS = { id: true, name: true, kind: true, createdAt: true } as const;

export async function findWorkspace(workspaceId: string) {
  return db().workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: WORKSPACE_FIELDS });
}

/**
 * A team workspace with its creator as owner, unless they have created `cap` already (null then).
 * One conditional UPDATE of the creator's counter decides: concurrent creates by one person queue
 * on their row, and each re-checks the count the previous one left.
 */
export async function createTeamWorkspace(name: string, ownerUserId: string, cap: number) {
  return db().$transaction(async (tx) => {
    const counted = await tx.$executeRaw`
      UPDATE users SET team_workspaces_created = team_workspaces_created + 1
      WHERE id = ${ownerUserId} AND team_workspaces_created < ${cap}`;
    if (counted === 0) return null;
    return tx.workspace.create({
      data: {
        id: newId("ws"),
        name,
        kind: "team",
        memberships: { create: { id: newId("mem"), userId: ownerUserId, role: "owner" } },
      },
      select: WORKSPACE_FIELDS,
    });
  });
}

export async function renameWorkspace(workspaceId: string, name: string) {
  return db().workspace.update({ where: { id: workspaceId }, data: { name }, select: WORKSPACE_FIELDS });
}

/** The user's memberships with their workspaces, oldest first. */
export async function userMemberships(userId: string) {
  return db().membership.findMany({
    where: { userId },
    orderBy: { createdAt: "asc" },
    select: { role: true, workspace: { select: WORKSPACE_FIELDS } },
  });
}

const SIGN_IN_USER_COLUMNS = { id: true, email: true, issuer: true } as const;

export async function findSignInUser(id: string) {
  return db().user.findUnique({ where: { id }, select: SIGN_IN_USER_COLUMNS });
}

export async function findSignInUserByIdentity(issuer: string, subject: string) {
  return db().user.findUnique({ where: { issuer_subject: { issuer, subject } }, select: SIGN_IN_USER_COLUMNS });
}

export async function findSignInUserByAccount(provider: string, providerAccountId: string) {
  const account = await db().signInAccount.findUnique({
    where: { provider_providerAccountId: { provider, providerAccountId } },
    select: { user: { select: SIGN_IN_USER_COLUMNS } },
  });
  return account?.user ?? null;
}

/** The unique (provider, provider_account_id) index refuses a second link of one provider account. */
export async function linkSignInAccount(provider: string, providerAccountId: string, userId: string): Promise<void> {
  await db().signInAccount.create({ data: { id: newId("acc"), provider, providerAccountId, userId } });
}

/** Keeps a pending e-mail link's (already hashed) token, and forgets the expired ones. */
export async function saveSignInToken(identifier: string, tokenHash: string, expiresAt: Date): Promise<void> {
  await db().signInToken.create({ data: { identifier, tokenHash, expiresAt } });
  await db().signInToken.deleteMany({ where: { expiresAt: { lt: new Date() } } });
}

/** One statement deletes and returns the row, so a link works once even when clicked twice at once. */
export async function useSignInToken(identifier: string, tokenHash: string): Promise<{ expiresAt: Date } | null> {
  const rows = await db().$queryRaw<{ expires_at: Date }[]>`
    DELETE FROM sign_in_tokens WHERE identifier = ${identifier} AND token_hash = ${tokenHash}
    RETURNING expires_at`;
  return rows[0] ? { expiresAt: rows[0].expires_at } : null;
}

/** The user of a dashboard session, with their personal workspace; null unless the session is theirs and has not ended. */
export async function findUserOfLiveSession(sessionId: string, userId: string) {
  const session = await db().dashboardSession.findFirst({
    where: { id: sessionId, userId, endedAt: null },
    select: { user: { select: { id: true, email: true, personalWorkspace: { select: { id: true } } } } },
  });
  return session?.user ?? null;
}

/**
 * A new sign-in's row. The person's ended sessions go in the same statement: a cookie counts only
 * while its row exists unended, so an ended row is kept by nothing, and signing in is what adds rows.
 */
export async function startDashboardSession(userId: string): Promise<string> {
  const id = newId("ses");
  await db().$executeRaw`
    WITH ended AS (DELETE FROM dashboard_sessions WHERE user_id = ${userId} AND ended_at IS NOT NULL)
    INSERT INTO dashboard_sessions (id, user_id) VALUES (${id}, ${userId})`;
  return id;
}

export async function endDashboardSession(sessionId: string, now: Date): Promise<void> {
  await db().dashboardSession.updateMany({ where: { id: sessionId, endedAt: null }, data: { endedAt: now } });
}

export async function endAllDashboardSessions(userId: string, now: Date): Promise<void> {
  await db().dashboardSession.updateMany({ where: { userId, endedAt: null }, data: { endedAt: now } });
}
