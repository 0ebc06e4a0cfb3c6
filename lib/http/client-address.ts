import { config } from "@/lib/config";
import { processSingleton } from "@/lib/process-singleton";
import ipaddr from "ipaddr.js";
import { createHmac } from "node:crypto";

/**
 * Keys the address hash when AUTH_SECRET is unset (a deployment signing in through AUTH_JWKS_URL).
 * A public key lets anyone who reads the store test every IPv4 address, so set AUTH_SECRET.
 */
const FALLBACK_ADDRESS_KEY = "permalink-client-address";

/**
 * Whether the requests this process serves came through the self-hosted front door
 * (server/start.ts), which appends each connection's peer to X-Forwarded-For before Next sees it.
 * Set by the front door's process and the application process it forks; never under bare
 * `next start` or on Vercel.
 */
export const behindFrontDoor = processSingleton("behindFrontDoor", () => false);

/**
 * X-Forwarded-For of a request Next's proxy takes behind the front door, cut back into what the
 * front door took (the header as sent to it) and the socket's peer it appended, so a visit Next
 * answers there records the same facts as one the front door answers. Next answers a visit there
 * when the two processes' verified-domain lookups disagree for a moment (a custom domain verified
 * while the front door still holds its "not verified" answer).
 */
export function splitFrontDoorPeer(forwardedFor: string | null): { forwardedFor: string | null; peerAddress: string | null } {
  if (!forwardedFor) return { forwardedFor: null, peerAddress: null };
  const lastComma = forwardedFor.lastIndexOf(",");
  if (lastComma === -1) return { forwardedFor: null, peerAddress: forwardedFor.trim() || null };
  return { forwardedFor: forwardedFor.slice(0, lastComma), peerAddress: forwardedFor.slice(lastComma + 1).trim() || null };
}

/**
 * The caller's address for per-client limits: the X-Forwarded-For entry written by the outermost
 * proxy we trust (trustedAddress). "unknown" when nothing trustworthy names one: under bare
 * `next start` with no proxy counted, every caller without an account shares that one budget.
 */
export function clientAddress(request: Request): string {
  return (
    trustedAddress(request.headers.get("x-forwarded-for"), request.headers.get("x-real-ip"), behindFrontDoor.get()) ?? "unknown"
  );
}

/**
 * The client's address in an X-Forwarded-For chain. Each of the TRUSTED_PROXY_HOPS proxies in
 * front appends the address it took the connection from (Vercel's edge writes the header afresh,
 * as one), and the front door, when `peerAppended`, appends its socket's peer after them: the
 * client is the entry the outermost of them wrote. Entries further left are whatever the client
 * chose to send, so they are never used; with nothing appended by anyone we trust (bare
 * `next start`, which passes on a client's header and fills in the peer only when there is none)
 * no entry is. X-Real-IP stands in only when the counted proxies sent no X-Forwarded-For at all.
 * Null when nothing trustworthy names an address.
 */
export function trustedAddress(forwardedFor: string | null, realIp: string | null, peerAppended: boolean): string | null {
  const { TRUSTED_PROXY_HOPS } = config();
  const entries = (forwardedFor ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) return TRUSTED_PROXY_HOPS > 0 ? withoutPort(realIp?.trim() || null) : null;
  const trustedEntries = TRUSTED_PROXY_HOPS + (peerAppended ? 1 : 0);
  return trustedEntries === 0 ? null : withoutPort(entries[Math.max(0, entries.length - trustedEntries)]!);
}

/**
 * An entry's address without the port some proxies write after it (Azure's `203.0.113.9:51234`,
 * `[2001:db8::7]:51234`): a client picks its port afresh for every connection, so counting it
 * would make each connection a new caller.
 */
function withoutPort(entry: string | null): string | null {
  if (entry === null) return null;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(entry);
  if (bracketed) return bracketed[1]!;
  const ipv4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(entry);
  return ipv4WithPort ? ipv4WithPort[1]! : entry;
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
