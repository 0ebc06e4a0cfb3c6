/** `?qr=1` on a short URL marks a scan of its QR code; it is recorded, not passed on. */
export const QR_PARAM = "qr";

export type IncomingQuery = { forward: URLSearchParams; viaQr: boolean };

const NO_QUERY: IncomingQuery = { forward: new URLSearchParams(), viaQr: false };

export function readIncomingQuery(query: string): IncomingQuery {
  if (query === "" || query === "?") return NO_QUERY;
  const forward = new URLSearchParams(query);
  const viaQr = forward.has(QR_PARAM);
  forward.delete(QR_PARAM);
  return { forward, viaQr };
}

/**
 * Adds the short URL's query parameters to the destination. The destination's own query is
 * kept byte for byte, and wins: a parameter it already has is not added again.
 */
export function mergeQuery(destination: string, forward: URLSearchParams): string {
  if (forward.size === 0) return destination;
  const url = new URL(destination);
  const existing = new URLSearchParams(url.search);
  const extra = new URLSearchParams();
  for (const [name, value] of forward) if (!existing.has(name)) extra.append(name, value);
  if (extra.size === 0) return destination;
  url.search = url.search ? `${url.search}&${extra}` : `?${extra}`;
  return url.toString();
}
