import { createHmac } from "node:crypto";
import { config } from "@/lib/config";

/**
 * Keys the address hash when AUTH_SECRET is unset (a deployment signing in through AUTH_JWKS_URL).
 * A public key lets anyone who reads the store test every IPv4 address, so set AUTH_SECRET.
 */
const FALLBACK_ADDRESS_KEY = "permalink-client-address";

/**
 * The caller's address for per-client limits. X-Forwarded-For entries added by proxies we run
 * are trusted from the right: the self-hosted front door appends the socket's peer, and
 * TRUSTED_PROXY_HOPS counts the proxies in front of it. Entries further left are whatever the
 * client chose to send, so they are never used.
 */
export function clientAddress(request: Request): string {
  return trustedAddress(request.headers.get("x-forwarded-for"), request.headers.get("x-real-ip")) ?? "unknown";
}

/** clientAddress from the raw header values (for callers that kept the strings, not the request); null when neither names one. */
export function trustedAddress(forwardedFor: string | null, realIp: string | null): string | null {
  const entries = (forwardedFor ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  const trusted = entries[Math.max(0, entries.length - 1 - config().TRUSTED_PROXY_HOPS)];
  return trusted ?? (realIp?.trim() || null);
}

/**
 * The caller's address as a keyed hash (HMAC-SHA256, base64url): what shared stores such as the
 * Redis rate-limit keys hold, so they can tell callers apart without keeping anyone's address.
 */
export function hashedClientAddress(request: Request): string {
  return createHmac("sha256", config().AUTH_SECRET ?? FALLBACK_ADDRESS_KEY)
    .update(clientAddress(request))
    .digest("base64url");
}
