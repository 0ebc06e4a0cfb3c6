import { isRecordId } from "@/lib/db/random";
import { DomainError, forbidden, notFound } from "@/lib/http/errors";
import { can, requirePermission } from "@/lib/workspaces/permissions";
import type { Principal } from "@/lib/workspaces/types";
import { NO_UTM, UTM_FIELDS } from "./parameters";
import { type CreateUtmTemplateInput, MAX_TEMPLATES, type UtmTemplateView } from "./schemas";
import type { TemplateRow } from "./store";
import * as store from "./store";

export async function listUtmTemplates(principal: Principal): Promise<{ templates: UtmTemplateView[] }> {
  requirePermission(principal, "links.read", "Your role in this workspace does not allow reading UTM templates.");
  return { templates: (await store.listTemplates(principal.workspaceId)).map(toTemplateView) };
}

/** Whoever may create links may save the parameters they put on them. */
export async function createUtmTemplate(principal: Principal, input: CreateUtmTemplateInput): Promise<UtmTemplateView> {
  requirePermission(principal, "links.create", "Your role in this workspace does not allow saving UTM templates.");
  const values = { ...NO_UTM };
  for (const field of UTM_FIELDS) values[field] = input[field] ?? "";
  const createdBy = principal.kind === "session" ? principal.userId : null;
  const template = await store.insertTemplate(principal.workspaceId, createdBy, input.name, values, MAX_TEMPLATES);
  if (template === "full") {
    throw new DomainError(
      "conflict",
      `This workspace already keeps ${MAX_TEMPLATES} UTM templates, the most it may; delete one it no longer uses first.`,
    );
  }
  if (template === "taken") {
    throw new DomainError(
      "conflict",
      `This workspace already has a UTM template named "${input.name}" (names are compared without regard to case).`,
    );
  }
  return toTemplateView(template);
}

/** As with links: owners, admins and the API key delete any template, members the ones they saved. */
export async function deleteUtmTemplate(principal: Principal, id: string): Promise<UtmTemplateView> {
  requirePermission(principal, "links.read", "Your role in this workspace does not allow deleting UTM templates.");
  const template = isRecordId(id) ? await store.findTemplate(principal.workspaceId, id) : null;
  if (!template) throw notFound("No UTM template with this id exists in this workspace.");
  const ownsIt = principal.kind === "session" && template.createdByUserId === principal.userId;
  if (!can(principal, "links.edit_any") && !(ownsIt && can(principal, "links.edit_own"))) {
    throw forbidden("Your role in this workspace allows deleting only the UTM templates you saved.");
  }
  await store.deleteTemplate(template.id);
  return toTemplateView(template);
}

function toTemplateView(row: TemplateRow): UtmTemplateView {
  return {
    id: row.id,
    name: row.name,
    utm_source: row.source,
    utm_medium: row.medium,
    utm_campaign: row.campaign,
    utm_term: row.term,
    utm_content: row.content,
    created_at: row.createdAt.getTime(),
  };
}
