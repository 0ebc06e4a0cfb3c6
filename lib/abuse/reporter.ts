import { createHmac } from "node:crypto";
import ipaddr from "ipaddr.js";
import { config } from "@/lib/config";

/**
 * Keys the reporter hash when AUTH_SECRET is unset (a deployment signing in through AUTH_JWKS_URL).
 * A public key lets anyone who reads the table test every network, so set AUTH_SECRET.
 */
const FALLBACK_REPORTER_SALT = "permalink-abuse-reporter";

/**
 * The network a client address counts as when reporting: its IPv4 /24 or IPv6 /64 (an
 * IPv4-mapped IPv6 address is its IPv4 address). One subscriber usually holds a whole /64, and
 * often several addresses of a /24, so counting addresses would let one person be many reporters.
 * Anything that is not an IP address (no address reached us) stands for itself.
 */
export function reporterNetwork(address: string): string {
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

/** Who is reporting, as a keyed hash of their network: enough to tell reporters apart and rate-limit them without keeping the address. */
export function reporterKey(clientAddress: string): string {
  return createHmac("sha256", config().AUTH_SECRET ?? FALLBACK_REPORTER_SALT)
    .update(reporterNetwork(clientAddress))
    .digest("hex");
}
