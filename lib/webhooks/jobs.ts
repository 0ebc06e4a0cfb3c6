import { config } from "@/lib/config";
import { defineJob } from "@/lib/schedule";
import { deliverWebhooks } from "./operations";
import { runWebhookDeliveries } from "./worker";

/** The delivery worker: due webhook messages sent and retried. */
export const webhookDeliveryJob = defineJob({
  name: "webhook delivery",
  operation: deliverWebhooks,
  cron: "* * * * *",
  intervalMs: () => config().WEBHOOK_DELIVERY_INTERVAL_SECONDS * 1000,
  run: runWebhookDeliveries,
});
