"use server";

import { inCustomerWords } from "@/lib/api/customer-words";
import { dashboardAction, type ActionResult } from "@/lib/api/dashboard";
import { updateLink } from "@/lib/links/operations";
import { toLinkView } from "@/lib/links/present";
import type { RoutingRule, ScheduledRepoint } from "@/lib/links/routing";
import { rulesField, scheduleField } from "@/lib/links/schemas";
import { editLink } from "@/lib/links/service";
import { ruleFor, type RuleFacts } from "@/lib/resolution/rules";
import { revalidatePath } from "next/cache";
import type { z } from "zod";

/** What the editors send: the rules or schedule as the API takes them. */
export type RoutingState = ActionResult<string> | null;

export async function saveRulesAction(id: string, rules: RoutingRule[]): Promise<RoutingState> {
  const checked = readable(rulesField, rules, "Rule");
  if (!checked.ok) return checked;
  const result = await dashboardAction(updateLink, { rules: checked.value }, async (principal, body) => {
    const link = toLinkView(await editLink(principal, id, body));
    return link.rules.length === 0
      ? "Rules removed: every visit goes to the link's destination."
      : `Saved ${link.rules.length} rule${link.rules.length === 1 ? "" : "s"}. Visits check the link live again until it has proven safe.`;
  });
  if (result.ok) revalidatePath(`/dashboard/links/${id}`);
  return result.ok ? result : { ok: false, error: plainWords(result.error) };
}

export async function saveScheduleAction(id: string, schedule: ScheduledRepoint[]): Promise<RoutingState> {
  const checked = readable(scheduleField, schedule, "Change");
  if (!checked.ok) return checked;
  const result = await dashboardAction(updateLink, { schedule: checked.value }, async (principal, body) => {
    const link = toLinkView(await editLink(principal, id, body));
    return link.schedule.length === 0
      ? "No changes scheduled."
      : `Scheduled ${link.schedule.length} change${link.schedule.length === 1 ? "" : "s"} of destination.`;
  });
  if (result.ok) revalidatePath(`/dashboard/links/${id}`);
  return result.ok ? result : { ok: false, error: plainWords(result.error) };
}

/** Where a visitor with these facts would go under the rules as edited (saved or not): the same matching as a visit. */
export async function previewRouteAction(rules: RoutingRule[], facts: RuleFacts): Promise<ActionResult<number | null>> {
  const checked = readable(rulesField, rules, "Rule");
  if (!checked.ok) return checked;
  return { ok: true, value: ruleFor(checked.value, facts) };
}

/** Validates with the API's own schema, naming the problem as the editor shows it (Rule 2, countries) rather than as a field path. */
function readable<Schema extends z.ZodType>(schema: Schema, input: unknown, item: string): ActionResult<z.output<Schema>> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0]!;
  const [index, ...rest] = issue.path;
  const field = rest.filter((part) => typeof part === "string" && part !== "when").at(-1);
  const where =
    typeof index === "number" ? `${item} ${index + 1}${field ? `, ${FIELD_NAMES[String(field)] ?? String(field)}` : ""}: ` : "";
  return { ok: false, error: inCustomerWords(`${where}${issue.message}.`) };
}

const FIELD_NAMES: Record<string, string> = {
  country: "countries",
  device: "devices",
  os: "systems",
  language: "languages",
  destination: "destination",
  at: "time",
};

/** The service names a refused destination by its place in the list (rules[1].destination); the editor numbers from 1. */
function plainWords(error: string): string {
  return error
    .replace(/^rules\[(\d+)\]\.destination: /, (_, index: string) => `Rule ${Number(index) + 1}'s destination: `)
    .replace(/^schedule\[(\d+)\]\.destination: /, (_, index: string) => `Change ${Number(index) + 1}'s destination: `)
    .replace(
      /^schedule\[(\d+)\]\.at must be in the future.*$/,
      (_, index: string) => `Change ${Number(index) + 1} must be in the future.`,
    );
}
