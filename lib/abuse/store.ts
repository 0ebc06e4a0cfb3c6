import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { newId } from "@/lib/db/random";
import type { LinkStatus } from "@/lib/links/status";
import { RECENT_REPORTS_SHOWN, type AbuseReport, type ReportReason } from "./schemas";

export type QueuePosition = { reporters: number; lastReportedAt: Date; linkId: string };

export type QueueRow = QueuePosition & {
  slug: string;
  host: string | null;
  destination: string;
  status: LinkStatus;
  abuseReason: string | null;
  firstReportedAt: Date;
  recentReports: { reason: ReportReason; details: string | null; contact: string | null; reported_at: number }[];
};

/**
 * Records a report unless this reporter already has one pending for this link. The partial unique
 * index (link_id, reporter_hash) WHERE reviewed_at IS NULL decides, so concurrent reports from one
 * network count once, and a network may report again after an operator's review.
 */
export async function recordReport(linkId: string, report: AbuseReport, reporterHash: string, now: Date): Promise<void> {
  await db().$executeRaw`
    INSERT INTO abuse_reports (id, link_id, reason, details, contact, reporter_hash, created_at)
    VALUES (${newId("abr")}, ${linkId}, ${report.reason}, ${report.details ?? null}, ${report.contact ?? null}, ${reporterHash}, ${now})
    ON CONFLICT (link_id, reporter_hash) WHERE reviewed_at IS NULL DO NOTHING`;
}

/**
 * Claims the one live check a report may trigger for this link in `intervalMs`; true for the
 * caller that got it. One statement decides, so concurrent reports from many networks still
 * trigger a single check.
 */
export async function claimLiveCheck(linkId: string, now: Date, intervalMs: number): Promise<boolean> {
  const claimed = await db().$executeRaw`
    INSERT INTO abuse_report_checks (link_id, checked_at) VALUES (${linkId}, ${now})
    ON CONFLICT (link_id) DO UPDATE SET checked_at = EXCLUDED.checked_at
    WHERE abuse_report_checks.checked_at <= ${new Date(now.getTime() - intervalMs)}`;
  return claimed === 1;
}

/**
 * The operator's queue: links with pending reports, most distinct reporters first, then the most
 * recently reported; keyset pagination on that order. A pending report is one per reporter (the
 * partial unique index), so counting them counts distinct reporters.
 */
export async function pendingQueue(limit: number, after?: QueuePosition): Promise<QueueRow[]> {
  const afterPosition = after
    ? Prisma.sql`WHERE (p.reporters, p.last_reported_at, p.link_id)
        < (${after.reporters}::int, ${after.lastReportedAt}::timestamptz, ${after.linkId})`
    : Prisma.empty;
  return db().$queryRaw<QueueRow[]>`
    WITH pending AS (
      SELECT link_id, count(*)::int AS reporters, min(created_at) AS first_reported_at, max(created_at) AS last_reported_at
      FROM abuse_reports
      WHERE reviewed_at IS NULL
      GROUP BY link_id
    )
    SELECT p.link_id AS "linkId", p.reporters, p.first_reported_at AS "firstReportedAt", p.last_reported_at AS "lastReportedAt",
      l.slug, l.host, l.destination, l.status::int AS status, l.abuse_reason AS "abuseReason",
      (SELECT json_agg(json_build_object(
                'reason', r.reason, 'details', r.details, 'contact', r.contact,
                'reported_at', floor(extract(epoch FROM r.created_at) * 1000)::bigint
              ) ORDER BY r.created_at DESC, r.id DESC)
         FROM (SELECT reason, details, contact, created_at, id FROM abuse_reports
               WHERE link_id = p.link_id AND reviewed_at IS NULL
               ORDER BY created_at DESC, id DESC
               LIMIT ${RECENT_REPORTS_SHOWN}) r
      ) AS "recentReports"
    FROM pending p
    JOIN links l ON l.id = p.link_id
    ${afterPosition}
    ORDER BY p.reporters DESC, p.last_reported_at DESC, p.link_id DESC
    LIMIT ${limit}`;
}

/** An operator's decision retires the link's reports pending at that moment; later ones queue the link again. */
export async function retirePendingReports(linkId: string, decidedAt: Date): Promise<void> {
  await db().abuseReport.updateMany({
    where: { linkId, reviewedAt: null, createdAt: { lte: decidedAt } },
    data: { reviewedAt: decidedAt },
  });
}
