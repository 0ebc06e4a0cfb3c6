import { defineJob } from "@/lib/schedule";
import { pruneScanEvents } from "./operations";
import { applyScanRetention } from "./service";

/**
 * Hourly, the first pass a minute after the server starts (off the start's own work, so a server restarted more
 * often than hourly still prunes): raw events leave within an hour of their retention ending, and ended days close.
 */
export const scanRetentionJob = defineJob({
  name: "pruning old scan events",
  operation: pruneScanEvents,
  cron: "17 * * * *",
  intervalMs: () => 60 * 60 * 1000,
  firstAfterMs: 60 * 1000,
  run: applyScanRetention,
});
