import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { revokeOAuthToken } from "@/lib/oauth/operations";
import { revokeToken } from "@/lib/oauth/service";

export const POST = apiRoute(revokeOAuthToken, async ({ body, reply }) => {
  const answer = await revokeToken(body);
  if (answer.ok) return reply(200, undefined, { "Cache-Control": "no-store" });
  return answer.status === 401 ? reply(401, answer.body) : reply(400, answer.body);
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
