import { config } from "@/lib/config";
import { trustedAddress } from "@/lib/http/client-address";
import { log } from "@/lib/log";
import { processSingleton } from "@/lib/process-singleton";
import { createHmac, createSecretKey, randomBytes, type KeyObject } from "node:crypto";
import type { VisitorFacts } from "./types";

/** The day keys derived so far (a few days' worth), and the key of this process when AUTH_SECRET is unset. */
const keys = processSingleton("visitorKeys", () => ({
  daily: new Map<string, KeyObject>(),
  processSecret: undefined as string | undefined,
}));

/**
 * The visitor hash behind uniques: HMAC-SHA256 of address and user agent under a key derived
 * for one UTC day from AUTH_SECRET, cut to 16 bytes (hex). Tomorrow's key is unrelated, so a
 * hash links a visitor's scans within a day and never across days, and no address is stored.
 */
export function visitorHash(day: string, address: string, userAgent: string | null): string {
  return createHmac("sha256", dailyKey(day))
    .update(`${address}\n${userAgent ?? ""}`)
    .digest()
    .subarray(0, 16)
    .toString("hex");
}

/**
 * The visitor's trusted client address, decided as for every other request
 * (lib/http/client-address.ts): the self-hosted front door's socket peer ends the X-Forwarded-For
 * chain, as it does when it hands a request to the application; a door that knows no peer (Next's
 * proxy, on Vercel or under `next start`) trusts only what the counted proxies wrote.
 */
export function visitorAddress(facts: Pick<VisitorFacts, "forwardedFor" | "peerAddress" | "realIp">): string | null {
  if (!facts.peerAddress) return trustedAddress(facts.forwardedFor, facts.realIp, false);
  const chain = facts.forwardedFor ? `${facts.forwardedFor}, ${facts.peerAddress}` : facts.peerAddress;
  return trustedAddress(chain, facts.realIp, true);
}

/** The UTC calendar day of a time, YYYY-MM-DD: the day a visitor hash belongs to. */
export function utcDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

/**
 * The day's key as a KeyObject: createHmac with a Buffer key re-checks what kind of key it was given
 * on every call (about 12 µs on Node 24, most of a flush's CPU); a KeyObject skips that (2.5 µs).
 */
function dailyKey(day: string): KeyObject {
  const secret = baseSecret();
  const cacheKey = `${day}\n${secret}`;
  const { daily } = keys.get();
  let key = daily.get(cacheKey);
  if (!key) {
    if (daily.size > 8) daily.clear();
    key = createSecretKey(createHmac("sha256", secret).update(`scan-visitor:${day}`).digest());
    daily.set(cacheKey, key);
  }
  return key;
}

/**
 * AUTH_SECRET keys the hashes so every instance agrees. A deployment without one (signing in
 * through AUTH_JWKS_URL) gets a random key per process: scans still count exactly, but a visitor
 * seen by two instances or across a restart counts as two uniques that day.
 */
function baseSecret(): string {
  const configured = config().AUTH_SECRET;
  if (configured) return configured;
  const held = keys.get();
  if (!held.processSecret) {
    held.processSecret = randomBytes(32).toString("base64url");
    log().warn(
      "AUTH_SECRET is not set: visitor hashes use a key of this process only, so uniques may count a visitor once per instance",
    );
  }
  return held.processSecret;
}
