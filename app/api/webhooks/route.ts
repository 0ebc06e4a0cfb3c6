import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { createWebhook, listWebhooks } from "@/lib/webhooks/operations";
import * as webhooks from "@/lib/webhooks/service";

export const POST = apiRoute(createWebhook, async ({ principal, body, reply }) =>
  reply(201, await webhooks.createWebhook(principal, body)),
);

export const GET = apiRoute(listWebhooks, async ({ principal, reply }) => reply(200, await webhooks.listWebhooks(principal)));

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
