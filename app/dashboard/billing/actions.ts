"use server";

import { dashboardAction } from "@/lib/api/dashboard";
import * as billingOperations from "@/lib/billing/operations";
import { openPortal, startCheckout } from "@/lib/billing/service";
import { redirect } from "next/navigation";
import { optional } from "../form-fields";

export type RedirectState = { error: string } | null;

export async function checkoutAction(_previous: RedirectState, form: FormData): Promise<RedirectState> {
  const result = await dashboardAction(
    billingOperations.startCheckout,
    { plan: optional(form, "plan"), interval: optional(form, "interval") },
    startCheckout,
  );
  if (!result.ok) return { error: result.error };
  redirect(result.value.url);
}

export async function portalAction(_previous: RedirectState): Promise<RedirectState> {
  const result = await dashboardAction(billingOperations.openBillingPortal, undefined, openPortal);
  if (!result.ok) return { error: result.error };
  redirect(result.value.url);
}
