import { epochMilliseconds, nextPageCursor, pageCursor, storedText } from "@/lib/http/schemas";
import { ABUSE, linkStatusField } from "@/lib/links/status";
import { z } from "zod";

export const REPORTS_PER_MINUTE = 10;
export const MAX_QUEUE_PAGE = 100;
/** The most recent pending reports shown with each link in the operator's queue. */
export const RECENT_REPORTS_SHOWN = 10;

export const REPORT_REASONS = ["phishing", "malware", "spam", "illegal", "other"] as const;

export const abuseReportBody = z
  .strictObject({
    url: z
      .url({ protocol: /^https?$/, error: "must be the short URL, for example https://s.example/abc2345" })
      .max(2048, "must be at most 2048 characters")
      .meta({ description: "the short URL being reported, on the default short host or a custom domain" }),
    reason: z.enum(REPORT_REASONS),
    details: storedText(z.string().max(2000, "must be at most 2000 characters"), { multiline: true }).optional(),
    contact: storedText(z.string().max(320, "must be at most 320 characters"))
      .optional()
      .meta({ description: "how to reach the reporter, if they wish" }),
  })
  .meta({ id: "AbuseReportRequest" });

export const abuseReportReceiptSchema = z
  .object({ received: z.literal(true) })
  .meta({ id: "AbuseReportReceipt", description: "The same answer whatever the report led to." });

export const linkStatusChangeBody = z
  .strictObject({
    status: linkStatusField,
    reason: storedText(z.string().trim().min(1, "must not be empty").max(500, "must be at most 500 characters"))
      .optional()
      .meta({ description: "shown on the warning page; required when status is 2" }),
  })
  .refine((change) => change.status !== ABUSE || change.reason !== undefined, {
    message: "is required when status is 2",
    path: ["reason"],
  })
  .meta({ id: "LinkStatusChangeRequest" });

export const linkStatusSchema = z
  .object({ id: z.string(), status: linkStatusField, abuse_reason: z.string().nullable() })
  .meta({ id: "LinkStatus" });

export const abuseQueueQuery = z.strictObject({
  limit: z.coerce
    .number()
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(MAX_QUEUE_PAGE, `must be at most ${MAX_QUEUE_PAGE}`)
    .optional(),
  cursor: pageCursor,
});

export const pendingReportSchema = z
  .object({
    reason: z.enum(REPORT_REASONS),
    details: z.string().nullable(),
    contact: z.string().nullable().meta({ description: "how the reporter asked to be reached, if they did" }),
    reported_at: epochMilliseconds,
  })
  .meta({ id: "PendingAbuseReport" });

export const abuseQueueEntrySchema = z
  .object({
    link: z.object({
      id: z.string(),
      slug: z.string(),
      host: z.string().nullable().meta({ description: "custom domain the link resolves on; null means the default short host" }),
      short_url: z.url(),
      destination: z.url(),
      status: linkStatusField,
      abuse_reason: z.string().nullable(),
    }),
    reporters: z
      .number()
      .int()
      .min(1)
      .meta({ description: "distinct reporting networks (IPv4 /24, IPv6 /64) with a pending report" }),
    first_reported_at: epochMilliseconds,
    last_reported_at: epochMilliseconds,
    recent_reports: z
      .array(pendingReportSchema)
      .max(RECENT_REPORTS_SHOWN)
      .meta({ description: `the ${RECENT_REPORTS_SHOWN} most recent pending reports, newest first` }),
  })
  .meta({ id: "AbuseQueueEntry" });

export const abuseQueueSchema = z
  .object({
    links: z.array(abuseQueueEntrySchema).max(MAX_QUEUE_PAGE),
    next_cursor: nextPageCursor,
  })
  .meta({ id: "AbuseQueue" });

export type AbuseReport = z.infer<typeof abuseReportBody>;
export type LinkStatusChange = z.infer<typeof linkStatusChangeBody>;
export type AbuseQueueQuery = z.infer<typeof abuseQueueQuery>;
export type AbuseQueueEntry = z.infer<typeof abuseQueueEntrySchema>;
export type AbuseQueue = z.infer<typeof abuseQueueSchema>;
export type ReportReason = (typeof REPORT_REASONS)[number];
