import type { SessionIdentity } from "@/lib/auth/session-tokens";
import { db } from "@/lib/db/client";
import { newId } from "@/lib/db/random";

export type KnownUser = { userId: string; personalWorkspaceId: string };

/**
 * Finds the user behind a verified session, creating them with a personal workspace (as owner)
 * the first time they are seen. Concurrent first requests create exactly one user: the insert
 * is ON CONFLICT DO NOTHING on (issuer, subject), and the loser reads the winner's rows.
 */
export async function ensureUser(identity: SessionIdentity): Promise<KnownUser> {
  const existing = await findUser(identity);
  if (existing) return existing;
  await db().$transaction(async (tx) => {
    const userId = newId("usr");
    const inserted = await tx.$executeRaw`
      INSERT INTO users (id, issuer, subject, email) VALUES (${userId}, ${identity.issuer}, ${identity.subject}, ${identity.email})
      ON CONFLICT (issuer, subject) DO NOTHING`;
    if (inserted === 0) return;
    const workspaceId = newId("ws");
    await tx.workspace.create({
      data: { id: workspaceId, name: personalWorkspaceName(identity), kind: "personal", personalForUserId: userId },
    });
    await tx.membership.create({ data: { id: newId("mem"), workspaceId, userId, role: "owner" } });
  });
  const created = await findUser(identity);
  if (!created) throw new Error("A user created a moment ago could not be read back.");
  return created;
}

async function findUser(identity: SessionIdentity): Promise<KnownUser | null> {
  const user = await db().user.findUnique({
    where: { issuer_subject: { issuer: identity.issuer, subject: identity.subject } },
    select: { id: true, personalWorkspace: { select: { id: true } } },
  });
  if (!user?.personalWorkspace) return null;
  return { userId: user.id, personalWorkspaceId: user.personalWorkspace.id };
}

function personalWorkspaceName(identity: SessionIdentity): string {
  return identity.email ? `${identity.email}'s workspace` : "Personal workspace";
}
