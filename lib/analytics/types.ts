/** What a request says about its visitor, raw as received: the facts a scan record keeps. */
export type VisitorFacts = {
  userAgent: string | null;
  referrer: string | null;
  /** The value of TRUSTED_COUNTRY_HEADER, when the operator configured one. */
  edgeCountry: string | null;
  /**
   * X-Forwarded-For as received, the socket's peer (the self-hosted front door) and X-Real-IP; the
   * trusted address is decided when the scan is written.
   */
  forwardedFor: string | null;
  peerAddress: string | null;
  realIp: string | null;
};

/**
 * What a door captures of a visit that resolved: raw strings only. Parsing the user agent, the
 * country lookup and the visitor hash wait for the buffer's flush, off the redirect path.
 */
export type CapturedScan = VisitorFacts & {
  linkId: string;
  /** The host name the request named. */
  host: string;
  occurredAt: number;
  method: "GET" | "HEAD";
  viaQr: boolean;
  /** The index of the routing rule whose destination served, null for the link's own. */
  servedRule: number | null;
};
