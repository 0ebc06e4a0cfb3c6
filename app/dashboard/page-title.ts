import { dashboardContext } from "@/lib/api/dashboard";
import { describeWorkspaces } from "@/lib/workspaces/service";
import type { Metadata } from "next";

/** A dashboard page's own title with the workspace it acts on ("Analytics — Acme Menus"), so tabs and history tell pages apart. */
export async function dashboardTitle(page: string): Promise<Metadata> {
  const context = await dashboardContext();
  if (!context) return { title: `${page} — Permalink` };
  const { workspace } = await describeWorkspaces(context.principal);
  return { title: `${page} — ${workspace.name}` };
}
