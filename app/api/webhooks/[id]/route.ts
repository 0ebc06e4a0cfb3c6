import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";
import { deleteWebhook, getWebhook, updateWebhook } from "@/lib/webhooks/operations";
import * as webhooks from "@/lib/webhooks/service";

export const GET = apiRoute(getWebhook, async ({ principal, params }) => json(await webhooks.getWebhook(principal, params.id)));

export const PATCH = apiRoute(updateWebhook, async ({ principal, params, body }) =>
  json(await webhooks.updateWebhook(principal, params.id, body)),
);

export const DELETE = apiRoute(deleteWebhook, async ({ principal, params }) => {
  await webhooks.deleteWebhook(principal, params.id);
  return new Response(null, { status: 204 });
});

export const { POST, PUT, OPTIONS } = otherMethods({ GET, PATCH, DELETE });
