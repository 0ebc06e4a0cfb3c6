import { config } from "@/lib/config";
import { defineJob } from "@/lib/schedule";
import { applyScheduledRepoints } from "./operations";
import { applyDueRepoints } from "./scheduled";

/** Due scheduled repoints written into their links and announced. */
export const scheduledRepointJob = defineJob({
  name: "scheduled repoints",
  operation: applyScheduledRepoints,
  cron: "* * * * *",
  intervalMs: () => config().SCHEDULED_REPOINT_INTERVAL_SECONDS * 1000,
  run: applyDueRepoints,
});
