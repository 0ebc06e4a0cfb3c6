import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { claimKey, revokeKey } from "@/lib/workspaces/api-key";
import { claimApiKey, revokeApiKey } from "@/lib/workspaces/operations";

export const POST = apiRoute(claimApiKey, async ({ principal, reply }) => reply(200, { api_key: await claimKey(principal) }));

export const DELETE = apiRoute(revokeApiKey, async ({ principal, reply }) => reply(200, await revokeKey(principal)));

export const { GET, PUT, PATCH, OPTIONS } = otherMethods({ POST, DELETE });
