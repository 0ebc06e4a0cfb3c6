import { abuseWarningPage, notFoundPage, shortLinksOnlyPage, unavailablePage } from "./pages";
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
  "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
};

const UNAVAILABLE_RETRY_AFTER_SECONDS = 30;

type FixedAnswers = Readonly<Record<Visit["method"], Answer>>;

/** A page that never changes is answered with one answer per method, built once; frozen, since every request shares it. */
function fixedPageAnswers(status: number, html: string, extra: Record<string, string> = {}): FixedAnswers {
  return { GET: frozen(pageAnswer(status, html, "GET", extra)), HEAD: frozen(pageAnswer(status, html, "HEAD", extra)) };
}

function frozen(answer: Answer): Answer {
  Object.freeze(answer.headers);
  return Object.freeze(answer);
}

const NOT_FOUND = fixedPageAnswers(404, notFoundPage());
const UNAVAILABLE = fixedPageAnswers(503, unavailablePage(), { "Retry-After": String(UNAVAILABLE_RETRY_AFTER_SECONDS) });

const SHORT_LINKS_ONLY_PAGE = fixedPageAnswers(404, shortLinksOnlyPage());
const SHORT_LINKS_ONLY_API: FixedAnswers = {
  GET: frozen(apiRefusal("GET")),
  HEAD: frozen(apiRefusal("HEAD")),
};

function apiRefusal(method: Visit["method"]): Answer {
  const body = JSON.stringify({ error: "This address serves short links only; send API requests to the service's own address." });
  return withBody(
    404,
    { ...COMMON_HEADERS, "Content-Type": "application/json; charset=utf-8", "X-Content-Type-Options": "nosniff" },
    body,
    method,
  );
}

/** The 404 a host that serves short links only gives anything else: `{ error }` under /api, a page otherwise. */
export function shortLinksOnlyAnswer(method: string, pathname: string): Answer {
  const answers = pathname === "/api" || pathname.startsWith("/api/") ? SHORT_LINKS_ONLY_API : SHORT_LINKS_ONLY_PAGE;
  return answers[method === "HEAD" ? "HEAD" : "GET"];
}

/** The HTTP answer for an outcome: the same status, headers and body from either door. */
export function answerFor(outcome: Outcome, visit: Visit): Answer {
  switch (outcome.kind) {
    case "redirect":
      return redirectAnswer(outcome.location, visit);
    case "blocked":
      return pageAnswer(403, abuseWarningPage(outcome.link.abuseReason), visit.method);
    case "not_found":
      return NOT_FOUND[visit.method];
    case "unavailable":
      return UNAVAILABLE[visit.method];
  }
}

/** The body names the destination in plain text, as Next does for redirects, so both doors match. */
function redirectAnswer(location: string, visit: Visit): Answer {
  return withBody(
    302,
    { ...COMMON_HEADERS, Location: location, "Content-Type": "text/plain; charset=utf-8" },
    location,
    visit.method,
  );
}

function pageAnswer(status: number, html: string, method: Visit["method"], extra: Record<string, string> = {}): Answer {
  return withBody(status, { ...PAGE_HEADERS, ...extra }, html, method);
}

/**
 * One measure of the body gives Content-Length and whether it is ASCII (as many bytes as characters).
 * `headers` is the caller's fresh object, completed here rather than copied: a redirect builds one header object, not two.
 */
function withBody(status: number, headers: Record<string, string>, body: string, method: Visit["method"]): Answer {
  const bytes = Buffer.byteLength(body);
  headers["Content-Length"] = String(bytes);
  return { status, headers, body: method === "HEAD" ? "" : body, ascii: bytes === body.length };
}
