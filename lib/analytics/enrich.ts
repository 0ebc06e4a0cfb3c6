import { agentFacts } from "./agents";
import { type CountryLookup, visitorCountry } from "./countries";
import type { CapturedScan } from "./types";
import { utcDay, visitorAddress, visitorHash } from "./visitors";

/** The longest user agent a scan row keeps. */
export const MAX_USER_AGENT_LENGTH = 512;

/** A scan as it is written: parsed, located, hashed; no address. */
export type ScanRow = {
  linkId: string;
  host: string;
  occurredAt: Date;
  userAgent: string | null;
  referrerHost: string | null;
  country: string | null;
  viaQr: boolean;
  device: string | null;
  browser: string | null;
  os: string | null;
  /** Bots, link-preview fetchers and HEAD requests: redirected, counted apart, never as scans. */
  bot: boolean;
  /** Hex visitor hash for the UTC day of the scan; null for bots. */
  visitor: string | null;
  /** The index of the routing rule whose destination served; null or absent (rows written before rules existed) for the link's own. */
  servedRule?: number | null;
};

/** Turns captured facts into the row written, at flush time. */
export function enrichScan(scan: CapturedScan, countryOf: CountryLookup): ScanRow {
  const agent = agentFacts(scan.userAgent);
  const bot = scan.method === "HEAD" || agent.bot;
  const address = visitorAddress(scan);
  return {
    linkId: scan.linkId,
    host: scan.host,
    occurredAt: new Date(scan.occurredAt),
    userAgent: scan.userAgent === null ? null : scan.userAgent.slice(0, MAX_USER_AGENT_LENGTH),
    referrerHost: referrerHost(scan.referrer),
    country: visitorCountry(scan.edgeCountry, () => address, countryOf),
    viaQr: scan.viaQr,
    device: agent.device,
    browser: agent.browser,
    os: agent.os,
    bot,
    visitor: bot ? null : visitorHash(utcDay(scan.occurredAt), address ?? "unknown", scan.userAgent),
    servedRule: scan.servedRule,
  };
}

/** A referring host as a row keeps it. */
export const HOST_NAME = /^[a-z0-9.-]{1,253}$/;

/** The referring page's host name only (lower case, punycode); anything that is not a plain host name is dropped. */
export function referrerHost(referrer: string | null): string | null {
  if (!referrer) return null;
  try {
    const host = new URL(referrer).hostname.toLowerCase();
    return HOST_NAME.test(host) ? host : null;
  } catch {
    return null;
  }
}
