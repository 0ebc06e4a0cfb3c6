import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { deliverWebhooks } from "@/lib/webhooks/operations";
import { runWebhookDeliveries } from "@/lib/webhooks/worker";

/** Vercel Cron's call to the webhook delivery worker; it sends `Authorization: Bearer <CRON_SECRET>`. */
export const GET = apiRoute(deliverWebhooks, async ({ reply }) => reply(200, await runWebhookDeliveries()));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
