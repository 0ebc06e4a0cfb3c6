import { config } from "@/lib/config";
import { defineJob } from "@/lib/schedule";
import { runDomainChecks } from "./job";
import { checkDomains } from "./operations";

/** The background DNS check of custom domains. */
export const domainCheckJob = defineJob({
  name: "background domain check",
  operation: checkDomains,
  cron: "*/5 * * * *",
  intervalMs: () => config().DOMAIN_CHECK_INTERVAL_SECONDS * 1000,
  run: runDomainChecks,
});
