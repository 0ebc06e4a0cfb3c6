import { defineOperation, failure, ok, RATE_LIMIT_HEADERS } from "@/lib/http/operation";
import { LINK_ID_PARAMETER } from "@/lib/links/operations";
import { abuseReportBody, abuseReportReceiptSchema, linkStatusChangeBody, linkStatusSchema, REPORTS_PER_MINUTE } from "./abuse-reports";
import { recheckTotalsSchema } from "./schemas";

export const reportAbuse = defineOperation({
  method: "post",
  path: "/api/abuse-reports",
  auth: "public",
  operationId: "reportAbuse",
  summary: "Report an abusive link",
  description:
    "Anyone may report a short URL; no credentials needed. One report per reporter and link counts (a repeat is accepted and ignored). The destination is checked again at once, and enough distinct reporters block the link pending review. The answer is the same whatever the report led to.",
  tag: "Abuse",
  body: abuseReportBody,
  responses: {
    202: ok("The report was received.", abuseReportReceiptSchema),
    400: failure("The body failed validation or is not JSON."),
    404: failure("No short link exists at this URL."),
    429: failure(`Too many reports from your address this minute (limit ${REPORTS_PER_MINUTE} a minute).`, RATE_LIMIT_HEADERS),
  },
});

export const setLinkStatus = defineOperation({
  method: "put",
  path: "/api/operator/links/{id}/status",
  auth: "operator",
  operationId: "setLinkStatus",
  summary: "Set a link's status (operator)",
  description: "Moves any link to active, quarantine or abuse, for example after reviewing abuse reports. Abuse needs a reason, which the warning page shows; leaving abuse clears it. Every instance drops its cached copy at once.",
  tag: "Abuse",
  parameters: [LINK_ID_PARAMETER],
  body: linkStatusChangeBody,
  responses: {
    200: ok("The link's new status.", linkStatusSchema),
    400: failure("The body failed validation or is not JSON, or status is 2 without a reason."),
    404: failure("No link with this id exists."),
  },
});

export const recheckLinks = defineOperation({
  method: "get",
  path: "/api/cron/recheck",
  auth: "cron",
  operationId: "recheckLinks",
  summary: "Run the background re-check (cron)",
  description: "Runs a live safety check on the quarantined links that are due one (a clean check counts toward release) and on a sample of active links (a destination that turned malicious is blocked), and says how many it checked, released and blocked.",
  tag: "Operations",
  responses: { 200: ok("What this run did.", recheckTotalsSchema) },
});
