"use server";

import { revalidatePath } from "next/cache";
import { type ActionResult, dashboardAction } from "@/lib/api/dashboard";
import { createWebhookBody } from "@/lib/webhooks/schemas";
import {
  createWebhook as createWebhookOperation,
  retryWebhookDelivery,
  testWebhook as testWebhookOperation,
  updateWebhook as updateWebhookOperation,
} from "@/lib/webhooks/operations";
import { createWebhook, retryDelivery, testWebhook, updateWebhook } from "@/lib/webhooks/service";

const PAGE = "/dashboard/settings/webhooks";

export type AddWebhookState = (ActionResult<{ url: string; secret: string }> & { typed?: string }) | null;

/** Adds an endpoint; the secret comes back here once, for the page to show once. */
export async function addWebhookAction(_previous: AddWebhookState, form: FormData): Promise<AddWebhookState> {
  const url = String(form.get("url") ?? "").trim();
  const input = {
    url,
    events: form.getAll("events").map(String),
    description: String(form.get("description") ?? "").trim() || undefined,
  };
  const parsed = createWebhookBody.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const what = issue.path[0] === "events" ? "Choose at least one event" : issue.path[0] === "url" ? "The address" : "The note";
    return { ok: false, error: issue.path[0] === "events" ? `${what}.` : `${what} ${issue.message}.`, typed: url };
  }
  const result = await dashboardAction({ ...createWebhookOperation, body: undefined }, parsed.data, async (principal) => {
    const created = await createWebhook(principal, parsed.data);
    return { url: created.url, secret: created.secret };
  });
  if (result.ok) revalidatePath(PAGE);
  return result.ok ? result : { ...result, typed: url };
}

export async function testWebhookAction(id: string): Promise<ActionResult<string>> {
  const result = await dashboardAction(testWebhookOperation, undefined, async (principal) => {
    const outcome = await testWebhook(principal, id);
    return outcome.delivered ? "Delivered: the receiver accepted the test message." : `Not delivered. ${outcome.error ?? ""}`;
  });
  revalidatePath(PAGE);
  return result;
}

export async function setWebhookDisabledAction(id: string, disabled: boolean): Promise<ActionResult<string>> {
  const result = await dashboardAction(updateWebhookOperation, { disabled }, async (principal, body) => {
    await updateWebhook(principal, id, body);
    return disabled ? "Disabled: nothing is sent to it until you enable it." : "Enabled: messages are sent again.";
  });
  revalidatePath(PAGE);
  return result;
}

export async function retryDeliveryAction(id: string, messageId: string): Promise<ActionResult<string>> {
  const result = await dashboardAction(retryWebhookDelivery, undefined, async (principal) => {
    await retryDelivery(principal, id, messageId);
    return "It will be sent again within moments, with the same message id.";
  });
  revalidatePath(PAGE);
  return result;
}
