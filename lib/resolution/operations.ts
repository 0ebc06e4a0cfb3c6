import { defineOperation, ok } from "@/lib/http/operation";
import { recheckTotalsSchema } from "./schemas";

export const recheckLinks = defineOperation({
  method: "get",
  path: "/api/cron/recheck",
  auth: "cron",
  operationId: "recheckLinks",
  summary: "Run the background re-check (cron)",
  description:
    "Runs a live safety check on the quarantined links that are due one (a clean check counts toward " +
    "release), on a sample of active links (a destination that turned malicious is blocked) and on a " +
    "sample of verified domains' root_destination and not_found_destination (one that turned malicious " +
    "is no longer served), and says how many it checked, released and blocked.",
  tag: "Operations",
  responses: { 200: ok("What this run did.", recheckTotalsSchema) },
});
