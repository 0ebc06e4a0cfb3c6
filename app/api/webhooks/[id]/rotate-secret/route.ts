import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { rotateWebhookSecret } from "@/lib/webhooks/operations";
import { rotateSecret } from "@/lib/webhooks/service";

export const POST = apiRoute(rotateWebhookSecret, async ({ principal, params, reply }) =>
  reply(200, await rotateSecret(principal, params.id)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
