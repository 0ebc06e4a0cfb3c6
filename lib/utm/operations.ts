import { defineOperation, failure, ok, type ParameterSpec } from "@/lib/http/operation";
import { createUtmTemplateBody, MAX_TEMPLATES, utmTemplateListSchema, utmTemplateSchema } from "./schemas";

const TEMPLATE_ID_PARAMETER = {
  name: "id",
  in: "path",
  required: true,
  description: "the template's id",
} as const satisfies ParameterSpec;

export const listUtmTemplates = defineOperation({
  method: "get",
  path: "/api/utm-templates",
  auth: "workspace",
  scope: "links:read",
  operationId: "listUtmTemplates",
  summary: "List UTM templates",
  description: "The workspace's saved UTM parameters, by name. Readable by every role.",
  tag: "Links",
  responses: { 200: ok("The templates.", utmTemplateListSchema) },
});

export const createUtmTemplate = defineOperation({
  method: "post",
  path: "/api/utm-templates",
  auth: "workspace",
  scope: "links:write",
  operationId: "createUtmTemplate",
  summary: "Save a UTM template",
  description:
    `Saves utm_source, utm_medium, utm_campaign, utm_term and utm_content under a name, for the ` +
    `dashboard's builder to add to a destination (the parameters become part of the destination URL, ` +
    `normalised as any). Names are unique in the workspace without regard to case; at most ` +
    `${MAX_TEMPLATES} templates. Whoever may create links.`,
  tag: "Links",
  write: true,
  body: createUtmTemplateBody,
  responses: {
    201: ok("The saved template.", utmTemplateSchema),
    400: failure("The body failed validation or is not JSON."),
    403: failure("Your role in this workspace does not allow saving UTM templates."),
    409: failure("The workspace already has a template of this name, or as many templates as it may keep."),
  },
});

export const deleteUtmTemplate = defineOperation({
  method: "delete",
  path: "/api/utm-templates/{id}",
  auth: "workspace",
  scope: "links:write",
  operationId: "deleteUtmTemplate",
  summary: "Delete a UTM template",
  description:
    "Deletes a saved template; links made with it keep their destinations. Owners, admins and the " +
    "API key delete any template, members the ones they saved, as with links.",
  tag: "Links",
  write: true,
  parameters: [TEMPLATE_ID_PARAMETER],
  responses: {
    204: { description: "The template is gone." },
    403: failure("Your role in this workspace does not allow deleting this template."),
    404: failure("No UTM template with this id exists in this workspace."),
  },
});
