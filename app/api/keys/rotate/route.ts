import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { rotateKey } from "@/lib/workspaces/api-key";
import { rotateApiKey } from "@/lib/workspaces/operations";

export const POST = apiRoute(rotateApiKey, async ({ principal, reply }) => reply(200, { api_key: await rotateKey(principal) }));

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
