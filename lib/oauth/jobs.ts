import { defineJob } from "@/lib/schedule";
import { cleanUpOAuth } from "./operations";
import { cleanUpSpentOAuth } from "./service";

/** Hourly, the first pass five minutes after the server starts: spent OAuth codes and tokens leave within the hour. */
export const oauthCleanupJob = defineJob({
  name: "cleaning up spent OAuth codes and tokens",
  operation: cleanUpOAuth,
  cron: "41 * * * *",
  intervalMs: () => 60 * 60 * 1000,
  firstAfterMs: 5 * 60 * 1000,
  run: cleanUpSpentOAuth,
});
