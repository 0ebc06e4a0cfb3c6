import { defineOperation, failure, ok, RATE_LIMIT_HEADERS } from "@/lib/http/operation";
import { LINK_ID_PARAMETER } from "@/lib/links/operations";
import {
  abuseQueueQuery,
  abuseQueueSchema,
  abuseReportBody,
  abuseReportReceiptSchema,
  linkStatusChangeBody,
  linkStatusSchema,
  MAX_QUEUE_PAGE,
  REPORTS_PER_MINUTE,
} from "./schemas";

export const reportAbuse = defineOperation({
  method: "post",
  path: "/api/abuse-reports",
  auth: "public",
  operationId: "reportAbuse",
  summary: "Report an abusive link",
  description:
    "Anyone may report a short URL; no credentials needed. A reporter is a network (IPv4 /24, IPv6 " +
    "/64), kept only as a keyed hash; one pending report per reporter and link counts (a repeat is " +
    "accepted and ignored). A report never changes the link's status by itself: it queues the link " +
    "for an operator's review and triggers a live safety check of the destination (at most one per " +
    "link every 10 minutes), which blocks the link only when the destination is found malicious. The " +
    "answer is the same whatever the report led to.",
  tag: "Abuse",
  body: abuseReportBody,
  responses: {
    202: ok("The report was received.", abuseReportReceiptSchema),
    400: failure("The body failed validation or is not JSON."),
    404: failure("No short link exists at this URL."),
    429: failure(`Too many reports from your network this minute (limit ${REPORTS_PER_MINUTE} a minute).`, RATE_LIMIT_HEADERS),
  },
});

export const listAbuseQueue = defineOperation({
  method: "get",
  path: "/api/operator/abuse-reports",
  auth: "operator",
  operationId: "listAbuseQueue",
  summary: "The abuse review queue (operator)",
  description:
    `Links with pending abuse reports, most distinct reporters first, then the most recently ` +
    `reported: each with the link, the number of reporters, the first and last report times and its ` +
    `most recent reports. At most ${MAX_QUEUE_PAGE} per page; follow next_cursor for more. Setting a ` +
    `link's status retires its pending reports, which takes it off the queue until someone reports ` +
    `it again.`,
  tag: "Abuse",
  query: abuseQueueQuery,
  queryDescriptions: { limit: `page size; defaults to ${MAX_QUEUE_PAGE}` },
  responses: {
    200: ok("A page of the queue.", abuseQueueSchema),
    400: failure("The query string failed validation, or the cursor was not issued by this service."),
  },
});

export const setLinkStatus = defineOperation({
  method: "put",
  path: "/api/operator/links/{id}/status",
  auth: "operator",
  operationId: "setLinkStatus",
  summary: "Set a link's status (operator)",
  description:
    "Moves any link to active, quarantine or abuse, for example after reviewing abuse reports; the " +
    "link's pending reports are retired with the decision. Abuse needs a reason, which the warning " +
    "page shows; leaving abuse clears it; quarantine starts afresh. Every instance drops its cached " +
    "copy at once.",
  tag: "Abuse",
  parameters: [LINK_ID_PARAMETER],
  body: linkStatusChangeBody,
  responses: {
    200: ok("The link's new status.", linkStatusSchema),
    400: failure("The body failed validation or is not JSON, or status is 2 without a reason."),
    404: failure("No link with this id exists."),
  },
});
