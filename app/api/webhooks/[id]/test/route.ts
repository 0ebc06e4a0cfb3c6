import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { testWebhook } from "@/lib/webhooks/operations";
import * as webhooks from "@/lib/webhooks/service";

export const POST = apiRoute(testWebhook, async ({ principal, params, reply }) =>
  reply(200, await webhooks.testWebhook(principal, params.id)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
