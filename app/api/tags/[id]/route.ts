import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { deleteTag, updateTag } from "@/lib/links/tag-changes";
import * as tagOperations from "@/lib/tags/operations";

export const PATCH = apiRoute(tagOperations.updateTag, async ({ principal, params, body, reply }) =>
  reply(200, await updateTag(principal, params.id, body)),
);

export const DELETE = apiRoute(tagOperations.deleteTag, async ({ principal, params, reply }) => {
  await deleteTag(principal, params.id);
  return reply(204);
});

export const { GET, POST, PUT, OPTIONS } = otherMethods({ PATCH, DELETE });
