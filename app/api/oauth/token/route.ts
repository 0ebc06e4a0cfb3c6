import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { exchangeOAuthToken } from "@/lib/oauth/operations";
import { exchangeToken } from "@/lib/oauth/service";

const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };

export const POST = apiRoute(exchangeOAuthToken, async ({ body, reply }) => {
  const answer = await exchangeToken(body);
  if (answer.ok) return reply(200, answer.value, NO_STORE);
  return answer.status === 401 ? reply(401, answer.body, NO_STORE) : reply(400, answer.body, NO_STORE);
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
