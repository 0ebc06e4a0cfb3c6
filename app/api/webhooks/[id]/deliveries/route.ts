import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { webhookDeliveries } from "@/lib/webhooks/operations";
import { deliveryLog } from "@/lib/webhooks/service";

export const GET = apiRoute(webhookDeliveries, async ({ principal, params, query, reply }) =>
  reply(200, await deliveryLog(principal, params.id, query.limit)),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
