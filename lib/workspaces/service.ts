import { liveKeySummary } from "@/lib/auth/store";
import { DomainError, forbidden } from "@/lib/http/errors";
import { requirePermission } from "./permissions";
import * as store from "./store";
import type { Principal, Role } from "./types";

/** The workspace the caller acts on, and (for a signed-in user) every workspace they belong to. */
export async function describeWorkspaces(principal: Principal) {
  const workspace = await store.findWorkspace(principal.workspaceId);
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

/** How many team workspaces one person may create: enough for real teams, too few to mass-produce senders of invitations. */
export const TEAM_WORKSPACES_PER_PERSON = 10;

/** A team workspace with the signed-in caller as its owner; both rows or neither, within the per-person cap. */
export async function createWorkspace(principal: Principal, name: string) {
  if (principal.kind !== "session") {
    throw forbidden("An API key belongs to one workspace and cannot create others; create a workspace with a session token.");
  }
  const workspace = await store.createTeamWorkspace(name, principal.userId, TEAM_WORKSPACES_PER_PERSON);
  if (!workspace)
    throw new DomainError(
      "conflict",
      `You have created ${TEAM_WORKSPACES_PER_PERSON} team workspaces, the most one person can create; ` +
        `use one of them, or ask to be invited to another.`,
    );
  return present(workspace, "owner");
}

export async function renameWorkspace(principal: Principal, name: string) {
  if (principal.kind !== "session")
    throw forbidden("An API key cannot rename its workspace; rename it with an owner's or admin's session token.");
  requirePermission(principal, "workspace.rename", "Only an owner or admin can rename this workspace.");
  const workspace = await store.renameWorkspace(principal.workspaceId, name);
  return present(workspace, principal.role);
}

function present(workspace: { id: string; name: string; kind: "personal" | "team" | "machine"; createdAt: Date }, role: Role) {
  return { id: workspace.id, name: workspace.name, kind: workspace.kind, role, created_at: workspace.createdAt.getTime() };
}

async function memberships(userId: string) {
  const rows = await store.userMemberships(userId);
  return rows.map((row) => present(row.workspace, row.role));
}
