"use server";

import { inCustomerWords } from "@/lib/api/customer-words";
import { type ActionResult, dashboardAction } from "@/lib/api/dashboard";
import { DomainError } from "@/lib/http/errors";
import * as webhookOperations from "@/lib/webhooks/operations";
import { createWebhookBody, type CreateWebhookInput } from "@/lib/webhooks/schemas";
import {
  createWebhook,
  deleteWebhook,
  listWebhooks,
  retryDelivery,
  rotateSecret,
  testWebhook,
  updateWebhook,
} from "@/lib/webhooks/service";
import type { Principal } from "@/lib/workspaces/types";
import { revalidatePath } from "next/cache";

const PAGE = "/dashboard/settings/webhooks";

export type AddWebhookState = (ActionResult<{ url: string; secret: string }> & { typed?: string }) | null;

/** The endpoint form's fields (add and edit have the same), checked with the API's own schema and told in the form's words. */
function endpointForm(form: FormData): { ok: true; value: CreateWebhookInput } | { ok: false; error: string } {
  const parsed = createWebhookBody.safeParse({
    url: String(form.get("url") ?? "").trim(),
    events: form.getAll("events").map(String),
    description: String(form.get("description") ?? "").trim() || undefined,
  });
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0]!;
  if (issue.path[0] === "events") return { ok: false, error: "Choose at least one event." };
  const what = issue.path[0] === "url" ? "The address" : "The note";
  return { ok: false, error: inCustomerWords(`${what} ${issue.message}.`) };
}

/**
 * One endpoint per address: a second one would get every message twice. Checked here against the
 * workspace's endpoints before the API's create or update runs (the API itself takes a repeat).
 */
async function refuseRepeatedAddress(principal: Principal, url: string, except?: string): Promise<void> {
  const { webhooks } = await listWebhooks(principal);
  const same = (other: string) => URL.parse(other)?.href === URL.parse(url)?.href;
  if (webhooks.some((webhook) => webhook.id !== except && same(webhook.url)))
    throw new DomainError("conflict", "This workspace already sends events to this address: edit that endpoint instead.");
}

/** Adds an endpoint; the secret comes back here once, for the page to show once. */
export async function addWebhookAction(_previous: AddWebhookState, form: FormData): Promise<AddWebhookState> {
  const typed = String(form.get("url") ?? "").trim();
  const input = endpointForm(form);
  if (!input.ok) return { ...input, typed };
  const result = await dashboardAction(
    { ...webhookOperations.createWebhook, body: undefined },
    input.value,
    async (principal) => {
      await refuseRepeatedAddress(principal, input.value.url);
      const created = await createWebhook(principal, input.value);
      return { url: created.url, secret: created.secret };
    },
  );
  if (result.ok) revalidatePath(PAGE);
  return result.ok ? result : { ...result, typed };
}

export type EditWebhookState = (ActionResult<string> & { attempt: number }) | null;

/** Changes an endpoint's address, events and note, as PATCH /api/webhooks/{id} does. */
export async function editWebhookAction(previous: EditWebhookState, form: FormData): Promise<EditWebhookState> {
  const attempt = (previous?.attempt ?? 0) + 1;
  const id = String(form.get("id") ?? "");
  const input = endpointForm(form);
  if (!input.ok) return { ...input, attempt };
  const result = await dashboardAction(
    { ...webhookOperations.updateWebhook, body: undefined },
    input.value,
    async (principal) => {
      await refuseRepeatedAddress(principal, input.value.url, id);
      const changed = await updateWebhook(principal, id, { ...input.value, description: input.value.description ?? "" });
      return `Saved: events for ${changed.events.join(", ")} go to ${changed.url}.`;
    },
  );
  revalidatePath(PAGE);
  return { ...result, attempt };
}

export async function deleteWebhookAction(_previous: ActionResult<string> | null, form: FormData): Promise<ActionResult<string>> {
  const result = await dashboardAction(webhookOperations.deleteWebhook, undefined, async (principal) => {
    await deleteWebhook(principal, String(form.get("id") ?? ""));
    return "The endpoint was deleted: nothing more is sent to it.";
  });
  revalidatePath(PAGE);
  return result;
}

/** A new signing secret, shown once; the old one stops signing at once. */
export async function rotateWebhookSecretAction(
  _previous: ActionResult<string> | null,
  form: FormData,
): Promise<ActionResult<string>> {
  return dashboardAction(webhookOperations.rotateWebhookSecret, undefined, async (principal) => {
    const rotated = await rotateSecret(principal, String(form.get("id") ?? ""));
    return rotated.secret;
  });
}

export async function testWebhookAction(id: string): Promise<ActionResult<string>> {
  const result = await dashboardAction(webhookOperations.testWebhook, undefined, async (principal) => {
    const outcome = await testWebhook(principal, id);
    return outcome.delivered
      ? "Delivered: the receiver accepted the test message."
      : `Not delivered. ${inCustomerWords(outcome.error ?? "The receiver did not accept the test message.")}`;
  });
  revalidatePath(PAGE);
  return result;
}

export async function setWebhookDisabledAction(id: string, disabled: boolean): Promise<ActionResult<string>> {
  const result = await dashboardAction(webhookOperations.updateWebhook, { disabled }, async (principal, body) => {
    await updateWebhook(principal, id, body);
    return disabled ? "Disabled: nothing is sent to it until you enable it." : "Enabled: messages are sent again.";
  });
  revalidatePath(PAGE);
  return result;
}

export async function retryDeliveryAction(id: string, messageId: string): Promise<ActionResult<string>> {
  const result = await dashboardAction(webhookOperations.retryWebhookDelivery, undefined, async (principal) => {
    await retryDelivery(principal, id, messageId);
    return "It will be sent again within moments, with the same message id.";
  });
  revalidatePath(PAGE);
  return result;
}
