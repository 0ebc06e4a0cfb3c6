import { config } from "@/lib/config";
import { defineJob } from "@/lib/schedule";
import * as resolutionOperations from "./operations";
import { recheckLinks } from "./recheck";

/** The background re-check: quarantined links due a live check, and a sample of active ones. */
export const recheckJob = defineJob({
  name: "background re-check",
  operation: resolutionOperations.recheckLinks,
  cron: "*/10 * * * *",
  intervalMs: () => config().RECHECK_INTERVAL_SECONDS * 1000,
  run: recheckLinks,
});
