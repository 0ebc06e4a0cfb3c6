import { config } from "@/lib/config";
import { storedText } from "@/lib/http/schemas";
import { processSingleton } from "@/lib/process-singleton";
import { createRemoteJWKSet, jwtVerify, SignJWT, type JWTPayload, type JWTVerifyGetKey } from "jose";
import { z } from "zod";
import { normaliseEmail } from "./email";

/**
 * Who a session token speaks for. A user is `(issuer, subject)`: for the built-in provider the
 * subject is the normalised e-mail address; for an external provider it is the provider's own
 * `sub`, and the e-mail is only informational unless the provider vouches for it (`emailVerified`).
 */
export type SessionIdentity = { issuer: string; subject: string; email: string | null; emailVerified: boolean };

const REMOTE_ALGORITHMS = ["RS256", "PS256", "ES256", "EdDSA"];
const BUILT_IN_ALGORITHM = "HS256";
const CLOCK_TOLERANCE_SECONDS = 30;

/** Text a claim may carry into the database: bounded, and without control characters. */
const claimText = storedText(z.string().min(1).max(255));

/** The claims this service reads, after jose has checked signature, iss, aud, exp, iat and presence. */
const sessionClaims = z.object({
  iss: claimText,
  sub: claimText,
  iat: z.number(),
  exp: z.number(),
  email: z.string().max(320).nullish(),
  // Some providers send the flag as a string.
  email_verified: z.union([z.boolean(), z.enum(["true", "false"]).transform((flag) => flag === "true")]).nullish(),
});

type SessionClaims = z.infer<typeof sessionClaims>;

/** The identity provider's key set (jose fetches and refreshes it), kept while AUTH_JWKS_URL stays the same. */
const remoteKeys = processSingleton<{ url: string; keys: JWTVerifyGetKey } | undefined>("remoteSessionKeys", () => undefined);

/**
 * Verifies a session JWT: signature, explicit algorithms, issuer, audience, expiry, an issue time
 * that is not in the future, and a lifetime (exp − iat) of at most AUTH_TOKEN_MAX_LIFETIME_SECONDS.
 * Null when it fails, including when a claim has the wrong type or shape.
 */
export async function verifySessionToken(token: string): Promise<SessionIdentity | null> {
  const { AUTH_ISSUER: issuer, AUTH_AUDIENCE: audience, AUTH_JWKS_URL, AUTH_TOKEN_MAX_LIFETIME_SECONDS: maxLifetime } = config();
  const options = {
    issuer,
    audience,
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    requiredClaims: ["sub", "exp", "iat"],
    // Makes jose refuse a token issued in the future; the lifetime check below is the tighter bound on age.
    maxTokenAge: maxLifetime,
  };
  let payload: JWTPayload;
  try {
    ({ payload } = AUTH_JWKS_URL
      ? await jwtVerify(token, jwksFor(AUTH_JWKS_URL), { ...options, algorithms: REMOTE_ALGORITHMS })
      : await jwtVerify(token, builtInSecret(), { ...options, algorithms: [BUILT_IN_ALGORITHM] }));
  } catch {
    return null;
  }
  const claims = sessionClaims.safeParse(payload);
  if (!claims.success || claims.data.exp - claims.data.iat > maxLifetime) return null;
  return AUTH_JWKS_URL ? externalIdentity(claims.data) : builtInIdentity(claims.data);
}

/** The built-in provider vouches for an e-mail address: its normalised spelling is the user. */
function builtInIdentity(claims: SessionClaims): SessionIdentity | null {
  const email = normaliseEmail(claims.email ?? claims.sub);
  if (email === null) return null;
  return { issuer: claims.iss, subject: email, email, emailVerified: true };
}

function externalIdentity(claims: SessionClaims): SessionIdentity {
  const email = claims.email ? normaliseEmail(claims.email) : null;
  return { issuer: claims.iss, subject: claims.sub, email, emailVerified: email !== null && claims.email_verified === true };
}

/**
 * Issues a token from the built-in provider (AUTH_SECRET), for scripts, tests and the dashboard.
 * Throws when `email` is not an e-mail address or the lifetime exceeds the configured maximum.
 */
export async function mintSessionToken(email: string, ttlSeconds = 60 * 60 * 24): Promise<string> {
  const normalisedEmail = normaliseEmail(email);
  if (normalisedEmail === null) throw new RangeError(`"${email}" is not an e-mail address.`);
  const { AUTH_ISSUER, AUTH_AUDIENCE, AUTH_TOKEN_MAX_LIFETIME_SECONDS } = config();
  if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0 || ttlSeconds > AUTH_TOKEN_MAX_LIFETIME_SECONDS) {
    throw new RangeError(
      `A session token lives between 1 and ${AUTH_TOKEN_MAX_LIFETIME_SECONDS} seconds (AUTH_TOKEN_MAX_LIFETIME_SECONDS).`,
    );
  }
  const issuedAt = Math.floor(Date.now() / 1000);
  return new SignJWT({ email: normalisedEmail })
    .setProtectedHeader({ alg: BUILT_IN_ALGORITHM, typ: "JWT" })
    .setSubject(normalisedEmail)
    .setIssuer(AUTH_ISSUER)
    .setAudience(AUTH_AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ttlSeconds)
    .sign(builtInSecret());
}

export function looksLikeJwt(candidate: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]+$/.test(candidate);
}

function builtInSecret(): Uint8Array {
  const secret = config().AUTH_SECRET;
  if (!secret) throw new Error("AUTH_SECRET is not set: the built-in identity provider cannot sign or verify tokens.");
  return new TextEncoder().encode(secret);
}

function jwksFor(url: string): JWTVerifyGetKey {
  const known = remoteKeys.peek();
  if (known?.url === url) return known.keys;
  const keys = createRemoteJWKSet(new URL(url));
  remoteKeys.set({ url, keys });
  return keys;
}
