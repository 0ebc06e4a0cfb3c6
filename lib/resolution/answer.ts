import { abuseWarningPage, notFoundPage, unavailablePage } from "./pages";
import type { Answer, Outcome, Visit } from "./types";

/** A redirect may be repointed at any time, so nothing may keep the old destination. */
const COMMON_HEADERS = {
  "Cache-Control": "no-store",
  "X-Robots-Tag": "noindex",
  "Referrer-Policy": "strict-origin-when-cross-origin",
};

const PAGE_HEADERS = {
  ...COMMON_HEADERS,
  "Content-Type": "text/html; charset=utf-8",
  "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
  "X-Content-Type-Options": "nosniff",
};

const UNAVAILABLE_RETRY_AFTER_SECONDS = 30;

/** The HTTP answer for an outcome: the same status, headers and body from either door. */
export function answerFor(outcome: Outcome, visit: Visit): Answer {
  switch (outcome.kind) {
    case "redirect":
      return redirectAnswer(outcome.location, visit);
    case "blocked":
      return pageAnswer(403, abuseWarningPage(outcome.link.abuseReason), visit);
    case "not_found":
      return pageAnswer(404, notFoundPage(visit.slug), visit);
    case "unavailable":
      return pageAnswer(503, unavailablePage(), visit, { "Retry-After": String(UNAVAILABLE_RETRY_AFTER_SECONDS) });
  }
}

/** The body names the destination in plain text, as Next does for redirects, so both doors match. */
function redirectAnswer(location: string, visit: Visit): Answer {
  const headers = { ...COMMON_HEADERS, Location: location, "Content-Type": "text/plain; charset=utf-8", "Content-Length": String(Buffer.byteLength(location)) };
  return { status: 302, headers, body: visit.method === "HEAD" ? "" : location };
}

function pageAnswer(status: number, html: string, visit: Visit, extra: Record<string, string> = {}): Answer {
  const headers = { ...PAGE_HEADERS, ...extra, "Content-Length": String(Buffer.byteLength(html)) };
  return { status, headers, body: visit.method === "HEAD" ? "" : html };
}
