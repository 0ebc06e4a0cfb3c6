import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";
import { createTag as createTagOperation, listTags as listTagsOperation } from "@/lib/tags/operations";
import { createTag, listTags } from "@/lib/tags/service";

export const GET = apiRoute(listTagsOperation, async ({ principal }) => json(await listTags(principal)));

export const POST = apiRoute(createTagOperation, async ({ principal, body }) => json(await createTag(principal, body), 201));

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
