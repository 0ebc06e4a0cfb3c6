import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import * as tagOperations from "@/lib/tags/operations";
import { createTag, listTags } from "@/lib/tags/service";

export const GET = apiRoute(tagOperations.listTags, async ({ principal, reply }) => reply(200, await listTags(principal)));

export const POST = apiRoute(tagOperations.createTag, async ({ principal, body, reply }) =>
  reply(201, await createTag(principal, body)),
);

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
