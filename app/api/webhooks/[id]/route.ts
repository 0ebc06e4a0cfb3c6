import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { deleteWebhook, getWebhook, updateWebhook } from "@/lib/webhooks/operations";
import * as webhooks from "@/lib/webhooks/service";

export const GET = apiRoute(getWebhook, async ({ principal, params, reply }) =>
  reply(200, await webhooks.getWebhook(principal, params.id)),
);

export const PATCH = apiRoute(updateWebhook, async ({ principal, params, body, reply }) =>
  reply(200, await webhooks.updateWebhook(principal, params.id, body)),
);

export const DELETE = apiRoute(deleteWebhook, async ({ principal, params, reply }) => {
  await webhooks.deleteWebhook(principal, params.id);
  return reply(204);
});

export const { POST, PUT, OPTIONS } = otherMethods({ GET, PATCH, DELETE });
