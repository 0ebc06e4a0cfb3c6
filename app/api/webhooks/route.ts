import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/http/respond";
import { createWebhook, listWebhooks } from "@/lib/webhooks/operations";
import * as webhooks from "@/lib/webhooks/service";

export const POST = apiRoute(createWebhook, async ({ principal, body }) =>
  json(await webhooks.createWebhook(principal, body), 201),
);

export const GET = apiRoute(listWebhooks, async ({ principal }) => json(await webhooks.listWebhooks(principal)));

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
