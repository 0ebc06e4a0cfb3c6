import { scanBuffer } from "@/lib/analytics/scans";
import { config } from "@/lib/config";
import { isVerifiedCustomDomain } from "@/lib/domains/verified-hosts";
import { isReserved } from "@/lib/links/slugs";
import { answerFor } from "./answer";
import { readIncomingQuery } from "./destination-query";
import { resolveVisit } from "./resolve";
import { resolutionRuntime } from "./runtime";
import type { Answer, Visit } from "./types";

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

const SINGLE_SEGMENT = /^\/([^/]+)$/;
const SLUG_CHARACTERS = /^[A-Za-z0-9_-]+$/;

type Hosts = { short: string; app: string };
let hosts: Hosts | undefined;

function knownHosts(): Hosts {
  hosts ??= { short: new URL(config().SHORT_BASE_URL).hostname, app: new URL(config().BASE_URL).hostname };
  return hosts;
}

/**
 * A visit when the request is GET or HEAD of one path segment on the short host or a verified
 * custom domain; null hands the request to the application. When short links share the app's
 * host, the app's own top-level paths (reserved slugs) stay with the application.
 */
export async function visitFor(request: DoorRequest): Promise<Visit | null> {
  if (request.method !== "GET" && request.method !== "HEAD") return null;
  const segment = SINGLE_SEGMENT.exec(request.pathname)?.[1];
  const requestHost = hostnameOf(request.hostHeader);
  if (!segment || !requestHost) return null;
  const linkHost = await linkHostFor(requestHost, segment);
  if (linkHost === undefined) return null;
  const trustedCountryHeader = config().TRUSTED_COUNTRY_HEADER;
  return {
    method: request.method,
    host: linkHost,
    requestHost,
    slug: segment,
    ...readIncomingQuery(request.search),
    userAgent: request.header("user-agent"),
    referrer: request.header("referer"),
    edgeCountry: trustedCountryHeader ? request.header(trustedCountryHeader) : null,
    forwardedFor: request.header("x-forwarded-for"),
    peerAddress: request.peerAddress ?? null,
    realIp: request.header("x-real-ip"),
  };
}

/** Resolves a visit, records the scan for after the response, and shapes the answer. */
export async function serveVisit(visit: Visit): Promise<{ answer: Answer; scanRecorded: boolean }> {
  const outcome = SLUG_CHARACTERS.test(visit.slug) ? await resolveVisit(visit, resolutionRuntime()) : { kind: "not_found" as const };
  const scanRecorded = outcome.kind === "redirect" || outcome.kind === "blocked";
  if (scanRecorded) {
    // Raw facts only: analytics parses, locates and hashes them when the buffer is written.
    scanBuffer().record({
      linkId: outcome.link.id,
      host: visit.requestHost,
      occurredAt: resolutionRuntime().clock.now(),
      method: visit.method,
      viaQr: visit.viaQr,
      userAgent: visit.userAgent,
      referrer: visit.referrer,
      edgeCountry: visit.edgeCountry,
      forwardedFor: visit.forwardedFor,
      peerAddress: visit.peerAddress,
      realIp: visit.realIp,
    });
  }
  return { answer: answerFor(outcome, visit), scanRecorded };
}

/** null: the default short host; a string: that custom domain; undefined: not a short-link host. */
async function linkHostFor(requestHost: string, segment: string): Promise<string | null | undefined> {
  const { short, app } = knownHosts();
  if (requestHost === short) return short === app && isReserved(segment) ? undefined : null;
  if (requestHost === app) return undefined;
  return (await isVerifiedCustomDomain(requestHost)) ? requestHost : undefined;
}

function hostnameOf(hostHeader: string | null): string | null {
  if (!hostHeader) return null;
  try {
    return new URL(`http://${hostHeader}`).hostname;
  } catch {
    return null;
  }
}
