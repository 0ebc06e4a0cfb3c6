import { BASE62, randomString } from "@/lib/db/random";
import { createHash, timingSafeEqual } from "node:crypto";
import { crc32 } from "node:zlib";

const SECRET_LENGTH = 32;
const CHECKSUM_LENGTH = 6;

/**
 * API keys look like `plk_<32 base62><6 base62 CRC32>`: the product prefix lets secret
 * scanners find leaked keys, the checksum lets us refuse typos and forgeries without a query.
 */
export function generateApiKey(prefix: string): string {
  const body = `${prefix}_${randomString(BASE62, SECRET_LENGTH)}`;
  return body + checksum(body);
}

export function hasValidFormat(candidate: string, prefix: string): boolean {
  const expectedLength = prefix.length + 1 + SECRET_LENGTH + CHECKSUM_LENGTH;
  if (candidate.length !== expectedLength || !candidate.startsWith(`${prefix}_`)) return false;
  if (!/^[0-9A-Za-z]+$/.test(candidate.slice(prefix.length + 1))) return false;
  const body = candidate.slice(0, -CHECKSUM_LENGTH);
  return constantTimeEqual(checksum(body), candidate.slice(-CHECKSUM_LENGTH));
}

export function looksLikeApiKey(candidate: string, prefix: string): boolean {
  return candidate.startsWith(`${prefix}_`);
}

/** The only form in which a key is stored. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** What a person sees to recognise a key later: prefix and last four characters. */
export function apiKeyHint(key: string, prefix: string): string {
  return `${prefix}_…${key.slice(-4)}`;
}

/**
 * Compares two secrets in time that depends on neither: both sides are first reduced to SHA-256
 * digests of one fixed length, so not even a difference in length returns early.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

function checksum(body: string): string {
  let value = crc32(body);
  let encoded = "";
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    encoded = BASE62[value % 62] + encoded;
    value = Math.floor(value / 62);
  }
  return encoded;
}
