import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";
import { webhookDeliveries } from "@/lib/webhooks/operations";
import { deliveryLog } from "@/lib/webhooks/service";

export const GET = apiRoute(webhookDeliveries, async ({ principal, params, query }) =>
  json(await deliveryLog(principal, params.id, query.limit)),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
