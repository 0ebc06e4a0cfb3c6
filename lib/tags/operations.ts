import { defineOperation, failure, ok, type ParameterSpec } from "@/lib/http/operation";
import { createTagBody, tagListSchema, tagSchema, updateTagBody } from "./schemas";

const TAG_ID_PARAMETER = { name: "id", in: "path", required: true, description: "the tag's id" } as const satisfies ParameterSpec;

export const listTags = defineOperation({
  method: "get",
  path: "/api/tags",
  auth: "workspace",
  scope: "links:read",
  operationId: "listTags",
  summary: "List tags",
  description: "Every tag of the workspace, by name. Readable by every role.",
  tag: "Links",
  responses: { 200: ok("The tags.", tagListSchema) },
});

export const createTag = defineOperation({
  method: "post",
  path: "/api/tags",
  auth: "workspace",
  scope: "links:write",
  operationId: "createTag",
  summary: "Create a tag",
  description:
    "Adds a tag to the workspace. Names are unique in the workspace without regard to case. Links " +
    "can also name a new tag in their tags, which creates it.",
  tag: "Links",
  write: true,
  body: createTagBody,
  responses: {
    201: ok("The new tag.", tagSchema),
    400: failure("The body failed validation or is not JSON."),
    403: failure("Your role in this workspace does not allow creating tags."),
    409: failure("The workspace already has a tag of this name."),
  },
});

export const updateTag = defineOperation({
  method: "patch",
  path: "/api/tags/{id}",
  auth: "workspace",
  scope: "links:write",
  operationId: "updateTag",
  summary: "Rename or recolour a tag",
  description: "Changes the tag's name or colour on every link that carries it. Owners, admins and the API key.",
  tag: "Links",
  write: true,
  parameters: [TAG_ID_PARAMETER],
  body: updateTagBody,
  responses: {
    200: ok("The changed tag.", tagSchema),
    400: failure("The body failed validation or is not JSON."),
    403: failure("Your role in this workspace does not allow changing tags."),
    404: failure("No tag with this id exists in this workspace."),
    409: failure("Another tag of the workspace already has this name."),
  },
});

export const deleteTag = defineOperation({
  method: "delete",
  path: "/api/tags/{id}",
  auth: "workspace",
  scope: "links:write",
  operationId: "deleteTag",
  summary: "Delete a tag",
  description: "Removes the tag and takes it off every link; the links themselves stay as they are.",
  tag: "Links",
  write: true,
  parameters: [TAG_ID_PARAMETER],
  responses: {
    204: { description: "The tag is gone." },
    403: failure("Your role in this workspace does not allow changing tags."),
    404: failure("No tag with this id exists in this workspace."),
  },
});
