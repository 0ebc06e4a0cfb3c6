import type { VisitorFacts } from "@/lib/analytics/types";
import type { ScheduledRepoint } from "@/lib/links/routing";
import type { LinkStatus } from "@/lib/links/status";

/** A routing rule made ready for visits when its link is cached: each named condition a set, the rest null (any value). */
export type CompiledRule = {
  countries: ReadonlySet<string> | null;
  devices: ReadonlySet<string> | null;
  systems: ReadonlySet<string> | null;
  languages: ReadonlySet<string> | null;
  destination: string;
};

/** Which destination serves a visit: the index of the rule that chose it, or null for the link's own. */
export type Route = { destination: string; rule: number | null };

/** What resolution needs to know about a link; cached per host and slug. */
export type ResolvedLink = {
  id: string;
  host: string | null;
  slug: string;
  destination: string;
  status: LinkStatus;
  createdAt: number;
  cleanChecks: number;
  lastCountedCheckAt: number | null;
  abuseReason: string | null;
  /** Routing rules ready for visits, or null when the link has none. */
  rules: readonly CompiledRule[] | null;
  /** Scheduled repoints not yet folded into destination, in time order, or null: resolution picks by the clock. */
  schedule: readonly ScheduledRepoint[] | null;
};

/** One request for a short link, as either door sees it, with the visitor facts its scan record keeps. */
export type Visit = VisitorFacts & {
  method: "GET" | "HEAD";
  /** The custom domain the request came in on, or null for the default short host. */
  host: string | null;
  /** The host name as the request named it, for the scan record. */
  requestHost: string;
  slug: string;
  /** The short URL's query parameters to pass on to the destination. */
  forward: URLSearchParams;
  /** The visit came from the link's QR code (`?qr` on the short URL). */
  viaQr: boolean;
  /** Accept-Language as received: routing rules by language read it; the scan record does not keep it. */
  acceptLanguage: string | null;
};

export type Outcome =
  /** `servedRule`: the index of the routing rule whose destination served, null for the link's own. */
  | { kind: "redirect"; link: ResolvedLink; location: string; servedRule: number | null }
  | { kind: "blocked"; link: ResolvedLink }
  | { kind: "not_found" }
  | { kind: "unavailable" };

/**
 * A complete HTTP answer, identical whichever door sends it; `ascii`: the body (GET's, for HEAD) is
 * ASCII, the same bytes in latin1 as in UTF-8.
 */
export type Answer = { status: number; headers: Record<string, string>; body: string; ascii: boolean };
