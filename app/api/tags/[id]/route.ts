import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";
import { deleteTag as deleteTagOperation, updateTag as updateTagOperation } from "@/lib/tags/operations";
import { deleteTag, updateTag } from "@/lib/tags/service";

export const PATCH = apiRoute(updateTagOperation, async ({ principal, params, body }) =>
  json(await updateTag(principal, params.id, body)),
);

export const DELETE = apiRoute(deleteTagOperation, async ({ principal, params }) => {
  await deleteTag(principal, params.id);
  return new Response(null, { status: 204 });
});

export const { GET, POST, PUT, OPTIONS } = otherMethods({ PATCH, DELETE });
