import type { VisitorFacts } from "@/lib/analytics/types";
import type { DomainDestinations } from "@/lib/domains/store";
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
  /** The customer's name for the link: the password page shows it. */
  title: string | null;
  /** The password's salted hash, or null: the link asks for none (the only check such a link pays). */
  passwordHash: string | null;
  /** After `after` scans the link points at `destination`: each visit is counted in the database, which decides. Null: no limit. */
  scanLimit: { after: number; destination: string } | null;
  /** The social preview link-preview crawlers are shown instead of the redirect, or null: they get the redirect too. */
  preview: { title: string | null; description: string | null; imageUrl: string | null } | null;
};

/** One request for a short link, as either door sees it, with the visitor facts its scan record keeps. */
export type Visit = VisitorFacts & {
  /** POST: the password page's form, sent back to the code. */
  method: "GET" | "HEAD" | "POST";
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
  /** A password for a protected link: the page's form field (POST), else the Link-Password header. */
  password: string | null;
  /** The Cookie header, read only for a protected link (its pass, lib/resolution/password-gate.ts). */
  cookie: string | null;
  /** The visit came over HTTPS (a custom domain, or an https short host): the pass cookie is marked Secure. */
  secure: boolean;
  /** On a custom domain: where it sends its root (slug "") and its unknown codes; absent on the short host. */
  domain?: DomainDestinations;
};

export type Outcome =
  /** `servedRule`: the index of the routing rule whose destination served, null for the link's own. */
  | { kind: "redirect"; link: ResolvedLink; location: string; servedRule: number | null; pass?: string }
  /**
   * A link-preview crawler at a link with a preview: the preview page, which names `location` (never
   * a scan). A scan-limited link's page names no destination (null): the page is no scan, so it must
   * not lead past the limit for anyone whose user agent claims to be a crawler.
   */
  | { kind: "preview"; link: ResolvedLink; location: string | null }
  /** A protected link's page: no password sent yet, or (`wrong`) a wrong one. */
  | { kind: "password_required"; link: ResolvedLink; wrong: boolean }
  /** Too many guesses at this code or from this network: try again after the seconds. */
  | { kind: "password_limited"; link: ResolvedLink; retryAfterSeconds: number }
  | { kind: "blocked"; link: ResolvedLink }
  | { kind: "not_found" }
  /** A custom domain's own redirect: its root, or an unknown code (no link, no scan). */
  | { kind: "domain_redirect"; location: string }
  /** A custom domain's root or unknown code whose destination the background re-check found harmful: the warning page (no scan). */
  | { kind: "domain_blocked"; reason: string }
  /** A custom domain's root, which it sends nowhere: our plain page. */
  | { kind: "no_root" }
  | { kind: "unavailable" };

/**
 * A complete HTTP answer, identical whichever door sends it; `ascii`: the body (GET's, for HEAD) is
 * ASCII, the same bytes in latin1 as in UTF-8.
 */
export type Answer = { status: number; headers: Record<string, string>; body: string; ascii: boolean };
