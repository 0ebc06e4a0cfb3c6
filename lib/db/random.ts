import { randomBytes } from "node:crypto";

export const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Uniformly random characters from `alphabet` (rejection sampling: no modulo bias). */
export function randomString(alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length);
  let result = "";
  while (result.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= limit) continue;
      result += alphabet[byte % alphabet.length];
      if (result.length === length) break;
    }
  }
  return result;
}

/** A record id such as `lnk_3kTq9…`: the prefix names the kind of record. */
export function newId(prefix: string): string {
  return `${prefix}_${randomString(BASE62, 20)}`;
}

/** What newId makes: a lower-case prefix (its own words joined by `_`), `_`, 20 base62 characters. */
const RECORD_ID = /^[a-z]+(?:_[a-z]+)*_[0-9A-Za-z]{20}$/;

/** Whether `value` has the shape of an id this service issues; anything else names no record. */
export function isRecordId(value: string): boolean {
  return value.length <= 64 && RECORD_ID.test(value);
}

/** A bearer secret carried in a URL (an invitation link): 256 random bits, base64url (43 characters). */
export function newSecretToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Whether `value` has the shape of newSecretToken's output; anything else names no secret. */
export function isSecretToken(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}
