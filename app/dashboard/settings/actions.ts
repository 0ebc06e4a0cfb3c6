"use server";

import { type ActionResult, dashboardAction, dashboardContext } from "@/lib/api/dashboard";
import { claimKey, revokeKey, rotateKeyAsOwner } from "@/lib/workspaces/api-key";
import * as workspaceOperations from "@/lib/workspaces/operations";
import { createWorkspace, renameWorkspace } from "@/lib/workspaces/service";
import { endAllDashboardSessions } from "@/lib/workspaces/sign-in";
import { findRole } from "@/lib/workspaces/store";
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { chooseWorkspace, optional, required } from "../form-fields";
import { tabOf } from "../tabs";

export type KeyState = ActionResult<{ key?: string; message: string }> | null;

export async function claimKeyAction(): Promise<KeyState> {
  const result = await dashboardAction(workspaceOperations.claimApiKey, undefined, async (principal) => ({
    key: await claimKey(principal),
    message: "Key created.",
  }));
  if (result.ok) revalidatePath("/dashboard/settings");
  return result;
}

export async function revokeKeyAction(): Promise<KeyState> {
  const result = await dashboardAction(workspaceOperations.revokeApiKey, undefined, async (principal) => {
    await revokeKey(principal);
    return { message: "The key was revoked: programs using it are refused from now on." };
  });
  if (result.ok) revalidatePath("/dashboard/settings");
  return result;
}

/** A new key in place of the live one, at once: the old key stops working, the new one is shown once. */
export async function rotateKeyAction(): Promise<KeyState> {
  const result = await dashboardAction(workspaceOperations.rotateApiKey, undefined, async (principal) => ({
    key: await rotateKeyAsOwner(principal),
    message: "The key was replaced: the old one is refused from now on.",
  }));
  if (result.ok) revalidatePath("/dashboard/settings");
  return result;
}

export type WorkspaceState = ActionResult<string> | null;

/** Acts on another workspace from now on, if the user is a member of it (checked again on every request). */
export async function switchWorkspaceAction(form: FormData): Promise<void> {
  const context = await dashboardContext();
  const workspaceId = required(form, "workspace");
  if (!context) redirect("/signin");
  const member = workspaceId === context.user.personalWorkspaceId || (await findRole(workspaceId, context.user.userId)) !== null;
  if (member) await chooseWorkspace(workspaceId);
  redirect(tabOf(optional(form, "tab") ?? "") ?? "/dashboard");
}

export async function createWorkspaceAction(_previous: WorkspaceState, form: FormData): Promise<WorkspaceState> {
  const result = await dashboardAction(
    workspaceOperations.createWorkspace,
    { name: required(form, "name") },
    (principal, body) => createWorkspace(principal, body.name),
    { name: "The workspace's name" },
  );
  if (!result.ok) return result;
  await chooseWorkspace(result.value.id);
  redirect("/dashboard/settings");
}

export async function renameWorkspaceAction(_previous: WorkspaceState, form: FormData): Promise<WorkspaceState> {
  const result = await dashboardAction(
    workspaceOperations.renameWorkspace,
    { name: required(form, "name") },
    async (principal, body) => {
      const renamed = await renameWorkspace(principal, body.name);
      return `Renamed to ${renamed.name}.`;
    },
    { name: "The workspace's name" },
  );
  if (result.ok) revalidatePath("/dashboard", "layout");
  return result;
}

/** Ends every dashboard session of the signed-in person, on every device, this one included; then off to sign-in. */
export async function signOutEverywhereAction(): Promise<void> {
  const context = await dashboardContext();
  if (context) await endAllDashboardSessions(context.user.userId);
  redirect("/signin");
}
