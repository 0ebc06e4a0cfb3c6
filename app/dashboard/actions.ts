"use server";

import { cookies } from "next/headers";
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { type ActionResult, dashboardAction, dashboardContext, WORKSPACE_COOKIE } from "@/lib/api/dashboard";
import { openBillingPortal, startCheckout as startCheckoutOperation } from "@/lib/billing/operations";
import { openPortal, startCheckout } from "@/lib/billing/service";
import { archiveLink, createLink as createLinkOperation, updateLink } from "@/lib/links/operations";
import { toLinkView } from "@/lib/links/present";
import { archive, createLink, repoint } from "@/lib/links/service";
import type { LinkView } from "@/lib/links/schemas";
import { claimApiKey, revokeApiKey } from "@/lib/workspaces/operations";
import { claimKey, revokeKey } from "@/lib/workspaces/api-key";
import { findRole } from "@/lib/workspaces/membership";

/** A form's blank optional field is absent, as a JSON client would leave it out. */
function optional(form: FormData, name: string): string | undefined {
  const value = form.get(name);
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

function required(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === "string" ? value : "";
}

/** The result, and what was typed (React resets a form after its action: an error puts the values back). */
export type CreateLinkState = (ActionResult<{ link: LinkView; created: boolean }> & { attempt: number; input: { destination?: string; slug?: string; domain_id?: string } }) | null;

export async function createLinkAction(previous: CreateLinkState, form: FormData): Promise<CreateLinkState> {
  const input = { destination: required(form, "destination").trim(), slug: optional(form, "slug"), domain_id: optional(form, "domain_id") };
  const result = await dashboardAction(createLinkOperation, input, async (principal, body) => {
    const { link, created } = await createLink(principal, body);
    return { link: toLinkView(link), created };
  });
  if (result.ok) revalidatePath("/dashboard");
  const typed = result.ok ? {} : { destination: required(form, "destination"), slug: required(form, "slug"), domain_id: required(form, "domain_id") };
  return { ...result, attempt: (previous?.attempt ?? 0) + 1, input: typed };
}

export type LinkEditState = (ActionResult<string> & { typed?: string }) | null;

export async function repointLinkAction(_previous: LinkEditState, form: FormData): Promise<LinkEditState> {
  const id = required(form, "id");
  const result = await dashboardAction(updateLink, { destination: required(form, "destination").trim() }, async (principal, body) => {
    const link = await repoint(principal, id, body.destination);
    return link.destination;
  });
  if (result.ok) revalidatePath("/dashboard", "layout");
  return result.ok ? result : { ...result, typed: required(form, "destination") };
}

export async function archiveLinkAction(_previous: LinkEditState, form: FormData): Promise<LinkEditState> {
  const id = required(form, "id");
  const result = await dashboardAction(archiveLink, undefined, async (principal) => {
    await archive(principal, id);
    return "Archived: the link keeps resolving and now shows under Archived.";
  });
  if (result.ok) revalidatePath("/dashboard", "layout");
  return result;
}

/** Acts on another workspace from now on, if the user is a member of it (checked again on every request). */
export async function switchWorkspaceAction(form: FormData): Promise<void> {
  const context = await dashboardContext();
  const workspaceId = required(form, "workspace");
  if (!context) redirect("/signin");
  const member = workspaceId === context.user.personalWorkspaceId || (await findRole(workspaceId, context.user.userId)) !== null;
  if (member) (await cookies()).set(WORKSPACE_COOKIE, workspaceId, { httpOnly: true, sameSite: "lax", path: "/", secure: process.env.NEXTAUTH_URL?.startsWith("https:") });
  redirect("/dashboard");
}

export type RedirectState = { error: string } | null;

export async function checkoutAction(_previous: RedirectState, form: FormData): Promise<RedirectState> {
  const result = await dashboardAction(startCheckoutOperation, { plan: optional(form, "plan"), interval: optional(form, "interval") }, startCheckout);
  if (!result.ok) return { error: result.error };
  redirect(result.value.url);
}

export async function portalAction(_previous: RedirectState): Promise<RedirectState> {
  const result = await dashboardAction(openBillingPortal, undefined, openPortal);
  if (!result.ok) return { error: result.error };
  redirect(result.value.url);
}

export type KeyState = ActionResult<{ key?: string; message: string }> | null;

export async function claimKeyAction(): Promise<KeyState> {
  const result = await dashboardAction(claimApiKey, undefined, async (principal) => ({ key: await claimKey(principal), message: "Key created." }));
  if (result.ok) revalidatePath("/dashboard/settings");
  return result;
}

export async function revokeKeyAction(): Promise<KeyState> {
  const result = await dashboardAction(revokeApiKey, undefined, async (principal) => {
    await revokeKey(principal);
    return { message: "The key was revoked: programs using it are refused from now on." };
  });
  if (result.ok) revalidatePath("/dashboard/settings");
  return result;
}
