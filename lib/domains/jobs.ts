import { config } from "@/lib/config";
import { defineJob } from "@/lib/schedule";
import { runDomainExpiryChecks } from "./expiry";
import { runDomainChecks } from "./job";
import { checkDomainExpiry, checkDomains } from "./operations";

/** The background DNS check of custom domains. */
export const domainCheckJob = defineJob({
  name: "background domain check",
  operation: checkDomains,
  cron: "*/5 * * * *",
  intervalMs: () => config().DOMAIN_CHECK_INTERVAL_SECONDS * 1000,
  run: runDomainChecks,
});

/** The expiry check of verified domains' registrations and certificates, and the warnings before a lapse. */
export const domainExpiryJob = defineJob({
  name: "domain expiry check",
  operation: checkDomainExpiry,
  cron: "41 * * * *",
  intervalMs: () => config().DOMAIN_EXPIRY_INTERVAL_SECONDS * 1000,
  run: runDomainExpiryChecks,
});
