import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { listOAuthGrants } from "@/lib/oauth/operations";
import { listConnectedApps } from "@/lib/oauth/service";

export const GET = apiRoute(listOAuthGrants, async ({ principal, reply }) => reply(200, await listConnectedApps(principal)));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
