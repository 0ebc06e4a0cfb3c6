import type { SessionIdentity } from "@/lib/auth/session-tokens";
import { db } from "@/lib/db/client";
import { newId } from "@/lib/db/random";

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
