import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { retryWebhookDelivery } from "@/lib/webhooks/operations";
import { retryDelivery } from "@/lib/webhooks/service";

export const POST = apiRoute(retryWebhookDelivery, async ({ principal, params, reply }) =>
  reply(200, await retryDelivery(principal, params.id, params.message_id)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
