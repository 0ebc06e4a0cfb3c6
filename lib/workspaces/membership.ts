import { db } from "@/lib/db/client";
import { isRecordId } from "@/lib/db/random";
import type { Role } from "./types";

/** null too for a workspace id no record can have: it also comes from a cookie and the dashboard's switch form. */
export async function findRole(workspaceId: string, userId: string): Promise<Role | null> {
  if (!isRecordId(workspaceId)) return null;
  const membership = await db().membership.findUnique({
    where: { workspaceId_userId: { workspaceId, userId } },
    select: { role: true },
  });
  return membership?.role ?? null;
}

/** Who hears about the workspace's operations (a custom domain whose DNS broke): its name, and its owners' and admins' addresses. */
export type WorkspaceManagers = { workspaceName: string; addresses: string[] };

/**
 * The workspace's owners and admins that have an address their identity provider vouched for
 * (an unverified address might be someone else's mailbox), oldest membership first; null when the
 * workspace is gone.
 */
export async function findWorkspaceManagers(workspaceId: string): Promise<WorkspaceManagers | null> {
  const workspace = await db().workspace.findUnique({
    where: { id: workspaceId },
    select: {
      name: true,
      memberships: {
        where: { role: { in: ["owner", "admin"] }, user: { emailVerified: true, email: { not: null } } },
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
