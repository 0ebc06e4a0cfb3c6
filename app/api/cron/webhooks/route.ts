import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { deliverWebhooks } from "@/lib/webhooks/operations";
import { runWebhookDeliveries } from "@/lib/webhooks/worker";

/** Vercel Cron's call to the webhook delivery worker; it sends `Authorization: Bearer <CRON_SECRET>`. */
export const GET = apiRoute(deliverWebhooks, async ({ reply }) => reply(200, await runWebhookDeliveries()));

/** A pass claims for up to 20 s, then finishes the attempts it started (10 s each): more than Vercel's default allows. */
export const maxDuration = 60;

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
