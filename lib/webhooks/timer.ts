import { config } from "@/lib/config";
import { repeat, type Schedule } from "@/lib/schedule";
import { runWebhookDeliveries } from "./worker";

/** The self-hosted server's delivery worker (Vercel Cron calls GET /api/cron/webhooks instead). */
export function startWebhookTimer(): Schedule {
  return repeat("webhook delivery", runWebhookDeliveries, config().WEBHOOK_DELIVERY_INTERVAL_SECONDS * 1000);
}
