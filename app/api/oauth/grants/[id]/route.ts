import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { revokeOAuthGrant } from "@/lib/oauth/operations";
import { revokeConnectedApp } from "@/lib/oauth/service";

export const DELETE = apiRoute(revokeOAuthGrant, async ({ principal, params, reply }) => {
  await revokeConnectedApp(principal, params.id);
  return reply(204);
});

export const { GET, POST, PUT, PATCH, OPTIONS } = otherMethods({ DELETE });
