import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { config } from "@/lib/config";
import { authorizeOAuth } from "@/lib/oauth/operations";
import { startAuthorization } from "@/lib/oauth/service";

export const GET = apiRoute(authorizeOAuth, async ({ query, reply }) => {
  const started = await startAuthorization(query, (id) => `${config().BASE_URL}/connect/${id}`);
  return started.ok ? reply(303, undefined, { Location: started.location }) : reply(400, started.body);
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
