"use server";

import { type ActionResult, dashboardAction } from "@/lib/api/dashboard";
import { revokeOAuthGrant } from "@/lib/oauth/operations";
import { revokeConnectedApp } from "@/lib/oauth/service";
import { revalidatePath } from "next/cache";

export type RevokeState = ActionResult<null> | null;

/** Disconnects an app, as DELETE /api/oauth/grants/{id} does: its tokens stop working at once. */
export async function revokeAppAction(_previous: RevokeState, form: FormData): Promise<RevokeState> {
  const id = String(form.get("id") ?? "");
  const result = await dashboardAction(revokeOAuthGrant, undefined, async (principal) => {
    await revokeConnectedApp(principal, id);
    return null;
  });
  if (result.ok) revalidatePath("/dashboard/apps");
  return result;
}
