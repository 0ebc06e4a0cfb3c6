import { clock } from "@/lib/clock";
import { config } from "@/lib/config";
import { keysetCursor } from "@/lib/http/cursor";
import { notFound } from "@/lib/http/errors";
import { enforceLimit, limiterFor } from "@/lib/http/write-limit";
import { shortUrl } from "@/lib/links/present";
import { ABUSE } from "@/lib/links/status";
import { blockForVerdict } from "@/lib/resolution/link-status";
import { checkLink } from "@/lib/resolution/link-verdict";
import { findLink, setStatus } from "@/lib/resolution/store";
import type { ResolvedLink } from "@/lib/resolution/types";
import { safetyChecker } from "@/lib/safety/instance";
import { reporterKey } from "./reporter";
import {
  MAX_QUEUE_PAGE,
  REPORTS_PER_MINUTE,
  type AbuseQueue,
  type AbuseQueueEntry,
  type AbuseQueueQuery,
  type AbuseReport,
  type LinkStatusChange,
} from "./schemas";
import * as store from "./store";

/** However many people report a link, its destination gets at most one report-triggered live check this often. */
export const REPORT_CHECK_INTERVAL_MS = 10 * 60 * 1000;

const REPORT_LIMIT_PREFIX = "permalink:rate-limit:abuse-reports";

/**
 * Takes a report from the public. It never changes the link's status by itself: it queues the
 * link for an operator, and triggers a live check of the destination (at most one per link per
 * REPORT_CHECK_INTERVAL_MS), which blocks the link only on a trusted malicious verdict. The caller
 * learns nothing of what followed.
 */
export async function reportAbuse(report: AbuseReport, clientAddress: string): Promise<void> {
  const reporter = reporterKey(clientAddress);
  await enforceLimit(
    limiterFor(REPORT_LIMIT_PREFIX, REPORTS_PER_MINUTE),
    reporter,
    "Too many abuse reports from your network this minute",
  );
  const link = await findReportedLink(report.url);
  const now = new Date(clock().now());
  await store.recordReport(link.id, report, reporter, now);
  await checkReportedLink(link, now);
}

/** The operator's review queue: links with pending reports, most distinct reporters first. */
export async function abuseQueue(query: AbuseQueueQuery): Promise<AbuseQueue> {
  const limit = query.limit ?? MAX_QUEUE_PAGE;
  const rows = await store.pendingQueue(limit, query.cursor ? queueCursor.read(query.cursor) : undefined);
  return { links: rows.map(toQueueEntry), next_cursor: queueCursor.next(rows, limit) };
}

/**
 * An operator's decision: moves the link to any status and retires the reports pending for it,
 * so the queue holds only what no one has looked at; null when no link has this id.
 */
export async function changeLinkStatus(linkId: string, change: LinkStatusChange): Promise<ResolvedLink | null> {
  const decidedAt = new Date(clock().now());
  const link = await setStatus(linkId, change.status, change.reason ?? null);
  if (!link) return null;
  await store.retirePendingReports(link.id, decidedAt);
  return link;
}

async function findReportedLink(shortUrlText: string): Promise<ResolvedLink> {
  const { hostname, pathname } = new URL(shortUrlText);
  const slug = /^\/([^/]+)$/.exec(pathname)?.[1];
  const link = slug ? await findLink(linkHostOf(hostname), slug) : null;
  if (!link) throw notFound("No short link exists at this URL.");
  return link;
}

/** The default short host stores links with host null; any other host is a custom domain. */
function linkHostOf(hostname: string): string | null {
  return hostname === new URL(config().SHORT_BASE_URL).hostname ? null : hostname;
}

/**
 * The live chain, not resolution's verdict cache, over every destination the link holds: a report
 * says one may have turned bad since the last check (the reporter may be one a rule sends
 * elsewhere). An unknown verdict (provider down, DNS failure) blocks nothing.
 */
async function checkReportedLink(link: ResolvedLink, now: Date): Promise<void> {
  if (link.status === ABUSE) return;
  if (!(await store.claimLiveCheck(link.id, now, REPORT_CHECK_INTERVAL_MS))) return;
  const verdict = await checkLink(link, now.getTime(), (url) => safetyChecker().check(url));
  if (verdict.status === "malicious") await blockForVerdict(link.id, verdict);
}

function toQueueEntry(row: store.QueueRow): AbuseQueueEntry {
  return {
    link: {
      id: row.linkId,
      slug: row.slug,
      host: row.host,
      short_url: shortUrl(row),
      destination: row.destination,
      status: row.status,
      abuse_reason: row.abuseReason,
    },
    reporters: row.reporters,
    first_reported_at: row.firstReportedAt.getTime(),
    last_reported_at: row.lastReportedAt.getTime(),
    recent_reports: row.recentReports.map((report) => ({ ...report, reported_at: Number(report.reported_at) })),
  };
}

const queueCursor = keysetCursor({ reporters: "count", lastReportedAt: "time", linkId: "id" });
