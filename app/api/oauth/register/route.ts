import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { registerOAuthClient } from "@/lib/oauth/operations";
import { registerClient } from "@/lib/oauth/service";

export const POST = apiRoute(registerOAuthClient, async ({ body, reply }) => {
  const registered = await registerClient(body);
  return registered.ok ? reply(201, registered.value) : reply(400, registered.body);
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
