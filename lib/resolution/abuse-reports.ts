import { createHmac } from "node:crypto";
import { z } from "zod";
import { clock } from "@/lib/clock";
import { config } from "@/lib/config";
import { clientAddress } from "@/lib/http/client-address";
import { db } from "@/lib/db/client";
import { newId } from "@/lib/db/random";
import { notFound } from "@/lib/http/errors";
import { enforceLimit, limiterFor } from "@/lib/http/write-limit";
import { safetyChecker } from "@/lib/safety/instance";
import { publishInvalidation } from "@/lib/links/invalidation";
import { blockLink, verdictAbuseReason } from "./link-status";
import { findLink, setStatus } from "./store";
import { ABUSE, linkStatusField } from "@/lib/links/status";
import type { ResolvedLink } from "./types";

export const REPORTS_PER_MINUTE = 10;

const REPORT_LIMIT_PREFIX = "permalink:rate-limit:abuse-reports";

/**
 * Keys the reporter hash when AUTH_SECRET is unset (a deployment signing in through AUTH_JWKS_URL).
 * A public key lets anyone who reads the table test every IPv4 address, so set AUTH_SECRET.
 */
const FALLBACK_REPORTER_SALT = "permalink-abuse-reporter";

export const abuseReportBody = z
  .strictObject({
    url: z
      .url({ protocol: /^https?$/, error: "must be the short URL, for example https://s.example/abc2345" })
      .max(2048, "must be at most 2048 characters")
      .meta({ description: "the short URL being reported, on the default short host or a custom domain" }),
    reason: z.enum(["phishing", "malware", "spam", "illegal", "other"]),
    details: z.string().max(2000, "must be at most 2000 characters").optional(),
    contact: z.string().max(320, "must be at most 320 characters").optional().meta({ description: "how to reach the reporter, if they wish" }),
  })
  .meta({ id: "AbuseReportRequest" });

export const abuseReportReceiptSchema = z
  .object({ received: z.literal(true) })
  .meta({ id: "AbuseReportReceipt", description: "The same answer whatever the report led to." });

export const linkStatusChangeBody = z
  .strictObject({
    status: linkStatusField,
    reason: z.string().trim().min(1, "must not be empty").max(500, "must be at most 500 characters").optional()
      .meta({ description: "shown on the warning page; required when status is 2" }),
  })
  .refine((change) => change.status !== ABUSE || change.reason !== undefined, { message: "is required when status is 2", path: ["reason"] })
  .meta({ id: "LinkStatusChangeRequest" });

export const linkStatusSchema = z
  .object({ id: z.string(), status: linkStatusField, abuse_reason: z.string().nullable() })
  .meta({ id: "LinkStatus" });

export type AbuseReport = z.infer<typeof abuseReportBody>;
export type LinkStatusChange = z.infer<typeof linkStatusChangeBody>;

/**
 * Who is reporting, as a keyed hash of the client address: enough to tell reporters apart and
 * rate-limit them without keeping the address.
 */
export function reporterOf(request: Request): string {
  return createHmac("sha256", config().AUTH_SECRET ?? FALLBACK_REPORTER_SALT).update(clientAddress(request)).digest("hex");
}

/**
 * Records a report (once per reporter and link), then runs a live check of the destination and
 * blocks at once when it is malicious, or when enough distinct people have reported the link.
 */
export async function reportAbuse(report: AbuseReport, reporter: string): Promise<void> {
  await enforceReportLimit(reporter);
  const link = await findReportedLink(report.url);
  const isNewReporter = await recordReport(link.id, report, reporter);
  if (link.status === ABUSE) return;
  const verdict = await safetyChecker().check(link.destination);
  if (verdict.status === "malicious") await blockLink(link.id, verdictAbuseReason(verdict), link.destination);
  else if (isNewReporter) await blockWhenReportedEnough(link.id);
}

/**
 * An operator's decision: moves the link to any status and marks its reports reviewed, so only
 * later reports count toward the next block; null when no link has this id.
 */
export async function changeLinkStatus(linkId: string, change: LinkStatusChange): Promise<ResolvedLink | null> {
  const link = await setStatus(linkId, change.status, change.reason ?? null);
  if (!link) return null;
  await markReportsReviewed(link.id);
  publishInvalidation({ kind: "link", host: link.host, slug: link.slug });
  return link;
}


async function findReportedLink(shortUrl: string): Promise<ResolvedLink> {
  const { hostname, pathname } = new URL(shortUrl);
  const slug = /^\/([^/]+)$/.exec(pathname)?.[1];
  const link = slug ? await findLink(linkHostOf(hostname), slug) : null;
  if (!link) throw notFound("No short link exists at this URL.");
  return link;
}

/** The default short host stores links with host null; any other host is a custom domain. */
function linkHostOf(hostname: string): string | null {
  return hostname === new URL(config().SHORT_BASE_URL).hostname ? null : hostname;
}

/** True when this reporter had not reported this link before (the unique index decides). */
async function recordReport(linkId: string, report: AbuseReport, reporterHash: string): Promise<boolean> {
  const { count } = await db().abuseReport.createMany({
    data: {
      id: newId("abr"),
      linkId,
      reason: report.reason,
      details: report.details ?? null,
      contact: report.contact ?? null,
      reporterHash,
      createdAt: new Date(clock().now()),
    },
    skipDuplicates: true,
  });
  return count === 1;
}

/** Reports an operator has not yet reviewed, one per reporter (the unique index keeps them distinct). */
function countUnreviewedReporters(linkId: string): Promise<number> {
  return db().abuseReport.count({ where: { linkId, reviewedAt: null } });
}

async function markReportsReviewed(linkId: string): Promise<void> {
  await db().abuseReport.updateMany({ where: { linkId, reviewedAt: null }, data: { reviewedAt: new Date(clock().now()) } });
}

async function blockWhenReportedEnough(linkId: string): Promise<void> {
  const reporters = await countUnreviewedReporters(linkId);
  if (reporters >= config().ABUSE_REPORT_THRESHOLD) {
    await blockLink(linkId, `Reported as abusive by ${reporters} people; under review`);
  }
}

async function enforceReportLimit(reporter: string): Promise<void> {
  await enforceLimit(limiterFor(REPORT_LIMIT_PREFIX, REPORTS_PER_MINUTE), reporter, "Too many abuse reports from your address this minute");
}
