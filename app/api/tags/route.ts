import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { createTag as createTagOperation, listTags as listTagsOperation } from "@/lib/tags/operations";
import { createTag, listTags } from "@/lib/tags/service";

export const GET = apiRoute(listTagsOperation, async ({ principal, reply }) => reply(200, await listTags(principal)));

export const POST = apiRoute(createTagOperation, async ({ principal, body, reply }) =>
  reply(201, await createTag(principal, body)),
);

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
