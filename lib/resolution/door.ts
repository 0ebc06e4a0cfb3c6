import { scanBuffer } from "@/lib/analytics/scans";
import { config } from "@/lib/config";
import type { DomainDestinations } from "@/lib/domains/store";
import { lookUpCustomDomain, lookUpVerifiedHost } from "@/lib/domains/verified-hosts";
import { hearInvalidations, invalidationsHeard } from "@/lib/links/invalidation";
import { isLookupCode, isReserved } from "@/lib/links/slugs";
import { processSingleton } from "@/lib/process-singleton";
import { isIpLiteral } from "@/lib/safety/addresses";
import { answerFor, shortLinksOnlyAnswer } from "./answer";
import { codeInPath } from "./code-path";
import { mergeQuery, readIncomingQuery } from "./destination-query";
import { countPreview } from "./previews";
import { resolveFromMemory, resolveVisit } from "./resolve";
import { resolutionRuntime } from "./runtime";
import type { Answer, Outcome, Visit } from "./types";

/** What a door knows about a request before deciding whether it is a short-link visit. */
export type DoorRequest = {
  method: string;
  hostHeader: string | null;
  pathname: string;
  search: string;
  header(name: string): string | null;
  /** The socket's peer, where the door has one (the self-hosted front door). */
  peerAddress?: string | null;
};

const hosts = processSingleton("doorHosts", () => ({
  short: new URL(config().SHORT_BASE_URL).hostname,
  shortSecure: config().SHORT_BASE_URL.startsWith("https:"),
  app: new URL(config().BASE_URL).hostname,
}));

function knownHosts(): { short: string; shortSecure: boolean; app: string } {
  return hosts.get();
}

/** The request's host may be a verified custom domain: known only after asking (visitFor does). */
export const CUSTOM_DOMAIN = Symbol("custom domain?");

/**
 * A visit when the request is GET or HEAD of a code's path (codeInPath: one segment or several) on
 * the short host or a verified custom domain, or a POST there (a protected link's form sent back:
 * the door reads its password with formPassword before serving it); null hands the request to the
 * application. When short links share the app's host, the app's own top-level paths (reserved
 * slugs) stay with the application.
 */
export async function visitFor(request: DoorRequest): Promise<Visit | null> {
  const known = visitNow(request);
  if (known !== CUSTOM_DOMAIN) return known;
  const requestHost = hostnameOf(request.hostHeader)!;
  if (!invalidationsHeard()) await hearInvalidations();
  const lookedUp = await lookUpCustomDomain(requestHost);
  const code = codeInPath(request.pathname);
  // Not a domain of ours; or its root, when the database cannot say in time: the application's own rules apply.
  if (lookedUp === false || (lookedUp === null && code === null)) return null;
  // Unknown (the database cannot say in time): a code's visit all the same, served from what is cached.
  const domain = lookedUp ?? UNKNOWN_DESTINATIONS;
  // The root is a visit of the domain alone (slug ""): its root_destination, or our plain page.
  const visit = visitOn(requestHost, requestHost, request, code ?? "");
  visit.domain = domain;
  return visit;
}

const UNKNOWN_DESTINATIONS: DomainDestinations = Object.freeze({
  root: null,
  notFound: null,
  rootBlocked: null,
  notFoundBlocked: null,
});

/** visitFor without waiting: CUSTOM_DOMAIN when the answer needs the verified-domain lookup. */
export function visitNow(request: DoorRequest): Visit | null | typeof CUSTOM_DOMAIN {
  if (request.method !== "GET" && request.method !== "HEAD" && request.method !== "POST") return null;
  const code = codeInPath(request.pathname);
  const requestHost = hostnameOf(request.hostHeader);
  if (!requestHost) return null;
  const { short, app } = knownHosts();
  if (requestHost === short) {
    return code === null || (short === app && isReserved(code)) ? null : visitOn(null, requestHost, request, code);
  }
  if (requestHost === app || !mayBeCustomDomain(requestHost)) return null;
  return code !== null || request.pathname === "/" ? CUSTOM_DOMAIN : null;
}

/**
 * The 404 for a request that is not a visit, on a host that serves short links only: a verified
 * custom domain, or the short host when it is not the app's. The API, the dashboard and the
 * site's pages answer on the service's own names alone. Every other name still reaches the
 * application, since the service's own callers come under names of their own (Vercel Cron on the
 * deployment's *.vercel.app name, a load balancer's health check on an address, the TLS
 * terminator's ask on localhost), and so does a name the lookup cannot decide in time: the
 * application's own rules still apply to it. No path is let through there (Next's build assets
 * included, which Vercel serves before its door): Next resolves `/_next/../api/links` to the API.
 * Null hands the request to the application.
 */
export async function applicationRefusal(request: DoorRequest): Promise<Answer | null> {
  const known = applicationRefusalNow(request);
  if (known !== CUSTOM_DOMAIN) return known;
  if (!invalidationsHeard()) await hearInvalidations();
  const verified = await lookUpVerifiedHost(hostnameOf(request.hostHeader)!);
  return verified === true ? shortLinksOnlyAnswer(request.method, request.pathname) : null;
}

/** applicationRefusal without waiting: CUSTOM_DOMAIN when the answer needs the verified-domain lookup. */
export function applicationRefusalNow(request: DoorRequest): Answer | null | typeof CUSTOM_DOMAIN {
  const requestHost = hostnameOf(request.hostHeader);
  if (!requestHost) return null;
  const { short, app } = knownHosts();
  if (requestHost === app) return null;
  if (requestHost === short) return shortLinksOnlyAnswer(request.method, request.pathname);
  return mayBeCustomDomain(requestHost) ? CUSTOM_DOMAIN : null;
}

/** Custom domains are dotted names, never addresses (lib/domains/hostname.ts): other hosts need no lookup. */
function mayBeCustomDomain(hostname: string): boolean {
  return hostname.includes(".") && !isIpLiteral(hostname);
}

function visitOn(linkHost: string | null, requestHost: string, request: DoorRequest, code: string): Visit {
  const trustedCountryHeader = config().TRUSTED_COUNTRY_HEADER;
  return {
    method: request.method as Visit["method"],
    host: linkHost,
    requestHost,
    slug: code,
    ...readIncomingQuery(request.search),
    userAgent: request.header("user-agent"),
    referrer: request.header("referer"),
    edgeCountry: trustedCountryHeader ? request.header(trustedCountryHeader) : null,
    forwardedFor: request.header("x-forwarded-for"),
    peerAddress: request.peerAddress ?? null,
    realIp: request.header("x-real-ip"),
    acceptLanguage: request.header("accept-language"),
    password: request.header("link-password"),
    cookie: request.header("cookie"),
    secure: linkHost !== null || knownHosts().shortSecure,
  };
}

/** The most a password form's body may hold: the field, its name and room for what browsers add. */
export const MAX_FORM_BYTES = 4096;

/** The password a form sent back (its `password` field), else the one the Link-Password header named. */
export function withFormPassword(visit: Visit, body: string): Visit {
  const field = new URLSearchParams(body).get("password");
  return field === null ? visit : { ...visit, password: field };
}

/** `previewCounted`: a crawler was shown a preview, counted for writing shortly (lib/resolution/previews.ts). */
export type Served = { answer: Answer; scanRecorded: boolean; previewCounted: boolean };

const NOT_FOUND: Outcome = { kind: "not_found" };

/** Resolves a visit, records the scan for after the response, and shapes the answer. */
export async function serveVisit(visit: Visit): Promise<Served> {
  if (!invalidationsHeard()) await hearInvalidations();
  if (visit.domain && visit.slug === "") return served(visit, rootOf(visit, visit.domain));
  const outcome = isLookupCode(visit.slug) ? await resolveVisit(visit, resolutionRuntime()) : NOT_FOUND;
  return served(visit, outcome.kind === "not_found" && visit.domain ? unknownCodeOf(visit, visit.domain) : outcome);
}

/**
 * A custom domain's root: its root_destination, or the plain page every other path of ours gets
 * there. A code the domain does not have, once the exact and the case-insensitive lookups found
 * nothing: its not_found_destination. Neither is a link's visit, so no scan is recorded; the
 * visit's query is passed on, as a link's is.
 */
function rootOf(visit: Visit, domain: DomainDestinations): Outcome {
  if (domain.rootBlocked !== null) return { kind: "domain_blocked", reason: domain.rootBlocked };
  return domain.root ? domainRedirect(visit, domain.root) : NO_ROOT;
}

/**
 * A destination the background re-check found harmful is not served: the visit gets the warning
 * page a blocked link's visit gets (403, the reason), never the redirect, until the owner sets one again.
 */
function unknownCodeOf(visit: Visit, domain: DomainDestinations): Outcome {
  if (domain.notFoundBlocked !== null) return { kind: "domain_blocked", reason: domain.notFoundBlocked };
  return domain.notFound ? domainRedirect(visit, domain.notFound) : NOT_FOUND;
}

function domainRedirect(visit: Visit, destination: string): Outcome {
  return { kind: "domain_redirect", location: mergeQuery(destination, visit.forward) };
}

const NO_ROOT: Outcome = { kind: "no_root" };

/** serveVisit when memory alone answers (the warm path, no promise); undefined when it needs I/O. */
export function serveFromMemory(visit: Visit): Served | undefined {
  if (!invalidationsHeard() || visit.method === "POST") return undefined;
  const outcome = isLookupCode(visit.slug) ? resolveFromMemory(visit, resolutionRuntime()) : NOT_FOUND;
  return outcome && served(visit, outcome);
}

function served(visit: Visit, outcome: Outcome): Served {
  const scanRecorded = outcome.kind === "redirect" || outcome.kind === "blocked";
  if (scanRecorded) {
    // Raw facts only: analytics parses, locates and hashes them when the buffer is written.
    scanBuffer().record({
      linkId: outcome.link.id,
      host: visit.requestHost,
      occurredAt: resolutionRuntime().clock.now(),
      // The password form's POST ends in the redirect a GET would have had.
      method: visit.method === "HEAD" ? "HEAD" : "GET",
      viaQr: visit.viaQr,
      userAgent: visit.userAgent,
      referrer: visit.referrer,
      edgeCountry: visit.edgeCountry,
      forwardedFor: visit.forwardedFor,
      peerAddress: visit.peerAddress,
      realIp: visit.realIp,
      servedRule: outcome.kind === "redirect" ? outcome.servedRule : null,
    });
  }
  // A crawler shown a preview is no scan: it is counted as a preview.
  const previewCounted = outcome.kind === "preview";
  if (previewCounted) countPreview(outcome.link.id);
  return { answer: answerFor(outcome, visit), scanRecorded, previewCounted };
}

/** A lower-case DNS name, with an optional port: what nearly every Host header is, read without a URL parser. */
const PLAIN_HOST = /^([a-z][a-z0-9-]*(?:\.[a-z0-9-]+)*)(?::(\d{1,5}))?$/;

function hostnameOf(hostHeader: string | null): string | null {
  if (!hostHeader) return null;
  // A name starting with a letter needs no normalising (IP forms, upper case and IDNs take the URL parser).
  const plain = PLAIN_HOST.exec(hostHeader);
  if (plain && !(Number(plain[2]) > 65535)) return plain[1]!;
  try {
    // A fully qualified name's trailing dot names the same host.
    return new URL(`http://${hostHeader}`).hostname.replace(/\.+$/, "");
  } catch {
    return null;
  }
}
