import { shortUrl } from "@/lib/links/present";
import { codePath } from "@/lib/links/slugs";
import {
  abuseWarningPage,
  blockedDestinationPage,
  formRefusedPage,
  notFoundPage,
  passwordPage,
  previewPage,
  shortLinksOnlyPage,
  unavailablePage,
} from "./pages";
import { PASS_COOKIE, PASS_LIFETIME_SECONDS } from "./password-gate";
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

/** GET and HEAD; a POST (the password form sent back) is answered as a GET. */
type FixedAnswers = Readonly<Record<"GET" | "HEAD", Answer>>;

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

const FORM_REFUSED = fixedPageAnswers(413, formRefusedPage());

/** A POST to a code whose body is not a password form (too long, or too slow to arrive): nothing is resolved. */
export function formRefusedAnswer(): Answer {
  return FORM_REFUSED.GET;
}

const SHORT_LINKS_ONLY_PAGE = fixedPageAnswers(404, shortLinksOnlyPage());
const SHORT_LINKS_ONLY_API: FixedAnswers = {
  GET: frozen(apiRefusal("GET")),
  HEAD: frozen(apiRefusal("HEAD")),
};

function apiRefusal(method: "GET" | "HEAD"): Answer {
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
  const method = visit.method === "HEAD" ? "HEAD" : "GET";
  switch (outcome.kind) {
    case "redirect":
      return redirectAnswer(outcome.location, method, outcome.pass === undefined ? null : passCookie(outcome.pass, visit));
    case "preview":
      return pageAnswer(200, previewPage(outcome.link.preview!, outcome.location, shortUrl(outcome.link)), method);
    case "blocked":
      return pageAnswer(403, abuseWarningPage(outcome.link.abuseReason), method);
    case "password_required":
      return pageAnswer(
        401,
        passwordPage(
          outcome.link.title,
          outcome.wrong ? "That password is not right. Check it and try again." : "Enter the password for this link to continue.",
        ),
        method,
        // A scheme of our own: browsers show the page, agents learn which header to send.
        { "WWW-Authenticate": 'Link-Password realm="short link"' },
      );
    case "password_limited":
      return pageAnswer(
        429,
        passwordPage(
          outcome.link.title,
          `Too many password attempts for this link just now; try again in ${outcome.retryAfterSeconds} seconds.`,
        ),
        method,
        { "Retry-After": String(outcome.retryAfterSeconds) },
      );
    case "not_found":
      return NOT_FOUND[method];
    case "domain_blocked":
      return pageAnswer(403, blockedDestinationPage(outcome.reason), method);
    case "domain_redirect":
      return redirectAnswer(outcome.location, method, null);
    case "no_root":
      return SHORT_LINKS_ONLY_PAGE[method];
    case "unavailable":
      return UNAVAILABLE[method];
  }
}

/** The pass for this code alone (its path), never sent to any other page of the host, nor readable by script. */
function passCookie(pass: string, visit: Visit): string {
  const secure = visit.secure ? "; Secure" : "";
  return `${PASS_COOKIE}=${pass}; Path=${codePath(visit.slug)}; Max-Age=${PASS_LIFETIME_SECONDS}; HttpOnly; SameSite=Lax${secure}`;
}

/** The body names the destination in plain text, as Next does for redirects, so both doors match. */
function redirectAnswer(location: string, method: "GET" | "HEAD", cookie: string | null): Answer {
  const headers: Record<string, string> = { ...COMMON_HEADERS, Location: location, "Content-Type": "text/plain; charset=utf-8" };
  if (cookie !== null) headers["Set-Cookie"] = cookie;
  return withBody(302, headers, location, method);
}

function pageAnswer(status: number, html: string, method: "GET" | "HEAD", extra: Record<string, string> = {}): Answer {
  return withBody(status, { ...PAGE_HEADERS, ...extra }, html, method);
}

/**
 * One measure of the body gives Content-Length and whether it is ASCII (as many bytes as characters).
 * `headers` is the caller's fresh object, completed here rather than copied: a redirect builds one header object, not two.
 */
function withBody(status: number, headers: Record<string, string>, body: string, method: "GET" | "HEAD"): Answer {
  const bytes = Buffer.byteLength(body);
  headers["Content-Length"] = String(bytes);
  return { status, headers, body: method === "HEAD" ? "" : body, ascii: bytes === body.length };
}
