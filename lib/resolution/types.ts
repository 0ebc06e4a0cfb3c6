import type { VisitorFacts } from "@/lib/analytics/types";
import type { LinkStatus } from "@/lib/links/status";

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
};

export type Outcome =
  | { kind: "redirect"; link: ResolvedLink; location: string }
  | { kind: "blocked"; link: ResolvedLink }
  | { kind: "not_found" }
  | { kind: "unavailable" };

/** A complete HTTP answer, identical whichever door sends it; `ascii`: the body (GET's, for HEAD) is ASCII, the same bytes in latin1 as in UTF-8. */
export type Answer = { status: number; headers: Record<string, string>; body: string; ascii: boolean };
