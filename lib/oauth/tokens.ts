import { constantTimeEqual } from "@/lib/auth/api-keys";
import { BASE62, randomString } from "@/lib/db/random";
import { createHash } from "node:crypto";

/** How long each secret counts. An access token is short-lived; its refresh token is replaced at each use. */
export const ACCESS_TOKEN_SECONDS = 15 * 60;
export const REFRESH_TOKEN_DAYS = 30;
/** A person has this long to decide on the consent page, and the app this long to exchange the code. */
export const AUTHORIZATION_REQUEST_MINUTES = 10;
export const CODE_SECONDS = 60;

/**
 * The three secrets, each 256 bits of base62 behind a prefix that names it (secret scanners find
 * leaked ones, and the route wrapper tells an access token from an API key or a session JWT).
 */
export const ACCESS_TOKEN_PREFIX = "plo_";
const REFRESH_TOKEN_PREFIX = "plr_";
const CODE_PREFIX = "plc_";
const SECRET_LENGTH = 43;

export const newAccessToken = () => ACCESS_TOKEN_PREFIX + randomString(BASE62, SECRET_LENGTH);
export const newRefreshToken = () => REFRESH_TOKEN_PREFIX + randomString(BASE62, SECRET_LENGTH);
export const newCode = () => CODE_PREFIX + randomString(BASE62, SECRET_LENGTH);

export function looksLikeAccessToken(token: string): boolean {
  return token.startsWith(ACCESS_TOKEN_PREFIX);
}

/** The only form in which a code or token is stored: its SHA-256, hex. */
export function secretHash(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** A code challenge as S256 writes it: base64url of a SHA-256, 43 characters. */
export const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** PKCE with S256 (RFC 7636 §4.6): the verifier's SHA-256, base64url without padding, equals the challenge. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  return constantTimeEqual(createHash("sha256").update(verifier).digest("base64url"), challenge);
}
