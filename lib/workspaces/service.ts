import { liveKeySummary } from "@/lib/auth/api-key-store";
import { db } from "@/lib/db/client";
import { requirePermission } from "./permissions";
import type { Principal } from "./types";

/** The workspace the caller acts on, and (for a signed-in user) every workspace they belong to. */
export async function describeWorkspaces(principal: Principal) {
  const workspace = await db().workspace.findUniqueOrThrow({
    where: { id: principal.workspaceId },
    select: { id: true, name: true, kind: true, createdAt: true },
  });
  const key = await liveKeySummary(workspace.id);
  return {
    workspace: {
      id: workspace.id,
      name: workspace.name,
      kind: workspace.kind,
      created_at: workspace.createdAt.getTime(),
      role: principal.kind === "session" ? principal.role : null,
      credential: principal.kind,
      api_key: key
        ? { hint: key.hint, created_at: key.createdAt.getTime(), last_used_at: key.lastUsedAt?.getTime() ?? null }
        : null,
    },
    workspaces: principal.kind === "session" ? await memberships(principal.userId) : [],
  };
}

export async function listMembers(principal: Principal) {
  requirePermission(principal, "members.read", "Your role in this workspace does not allow listing members.");
  const rows = await db().membership.findMany({
    where: { workspaceId: principal.workspaceId },
    orderBy: { createdAt: "asc" },
    select: { userId: true, role: true, createdAt: true, user: { select: { email: true } } },
  });
  return rows.map((row) => ({
    id: row.userId,
    email: row.user.email,
    role: row.role,
    status: "active" as const,
    created_at: row.createdAt.getTime(),
  }));
}

async function memberships(userId: string) {
  const rows = await db().membership.findMany({
    where: { userId },
    orderBy: { createdAt: "asc" },
    select: { role: true, workspace: { select: { id: true, name: true, kind: true } } },
  });
  return rows.map((row) => ({ id: row.workspace.id, name: row.workspace.name, kind: row.workspace.kind, role: row.role }));
}
