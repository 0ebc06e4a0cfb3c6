"use server";

import { type ActionResult, dashboardAction } from "@/lib/api/dashboard";
import * as utmOperations from "@/lib/utm/operations";
import type { UtmTemplateView } from "@/lib/utm/schemas";
import { createUtmTemplate, deleteUtmTemplate } from "@/lib/utm/service";
import { revalidatePath } from "next/cache";

/** The builder's names for the template's fields, in its words. */
const TEMPLATE_FIELDS = {
  name: "The template's name",
  utm_source: "The source",
  utm_medium: "The medium",
  utm_campaign: "The campaign",
  utm_term: "The term",
  utm_content: "The content",
};

/** Saves the builder's parameters under a name: POST /api/utm-templates's schema and capability. */
export async function saveUtmTemplateAction(input: unknown): Promise<ActionResult<UtmTemplateView>> {
  const result = await dashboardAction(utmOperations.createUtmTemplate, input, createUtmTemplate, TEMPLATE_FIELDS);
  if (result.ok) revalidatePath("/dashboard", "layout");
  return result;
}

/** Deletes a saved template; links keep their destinations: DELETE /api/utm-templates/{id}'s capability. */
export async function deleteUtmTemplateAction(id: string): Promise<ActionResult<string>> {
  const result = await dashboardAction(utmOperations.deleteUtmTemplate, undefined, async (principal) => {
    const template = await deleteUtmTemplate(principal, String(id));
    return `Deleted the template "${template.name}". Links made with it keep their destinations.`;
  });
  if (result.ok) revalidatePath("/dashboard", "layout");
  return result;
}
