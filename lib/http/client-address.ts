import { createHmac } from "node:crypto";
import ipaddr from "ipaddr.js";
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
 * Whether the request reached us over HTTPS: always when BASE_URL is https (its public origin),
 * else only when TRUSTED_PROXY_HOPS proxies stand in front and the outermost of them says so in
 * X-Forwarded-Proto (each proxy appends or replaces; entries beyond the trusted ones are the
 * client's word and never count).
 */
export function cameOverHttps(request: Request): boolean {
  const { BASE_URL, TRUSTED_PROXY_HOPS } = config();
  if (BASE_URL.startsWith("https:")) return true;
  if (TRUSTED_PROXY_HOPS === 0) return false;
  const entries = (request.headers.get("x-forwarded-proto") ?? "").split(",").map((entry) => entry.trim().toLowerCase());
  return entries[Math.max(0, entries.length - TRUSTED_PROXY_HOPS)] === "https";
}

/**
 * The caller's address as a keyed hash (HMAC-SHA256, base64url): what shared stores such as the
 * Redis rate-limit keys hold, so they can tell callers apart without keeping anyone's address.
 */
export function hashedClientAddress(request: Request): string {
  return keyedHash(clientAddress(request));
}

/** The caller's network (clientNetwork) as a keyed hash, for limits per network. */
export function hashedClientNetwork(request: Request): string {
  return keyedHash(clientNetwork(clientAddress(request)));
}

/** HMAC-SHA256 (base64url) under AUTH_SECRET: what a shared store keeps instead of an address it must not hold. */
export function keyedHash(value: string): string {
  return createHmac("sha256", config().AUTH_SECRET ?? FALLBACK_ADDRESS_KEY)
    .update(value)
    .digest("base64url");
}

/**
 * The network a client address counts as for limits per network: its IPv4 /24 or IPv6 /64 (an
 * IPv4-mapped IPv6 address is its IPv4 address). One subscriber usually holds a whole /64, and
 * often several addresses of a /24, so counting addresses would let one person be many callers.
 * Anything that is not an IP address (no address reached us) stands for itself.
 */
export function clientNetwork(address: string): string {
  const literal = address.trim();
  if (!ipaddr.isValid(literal)) return literal.toLowerCase();
  const parsed = ipaddr.process(literal);
  if (parsed.kind() === "ipv4") {
    const [a, b, c] = (parsed as ipaddr.IPv4).octets;
    return `${a}.${b}.${c}.0/24`;
  }
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(":")}::/64`;
}
