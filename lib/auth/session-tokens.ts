import { createRemoteJWKSet, jwtVerify, SignJWT, type JWTVerifyGetKey } from "jose";
import { config } from "@/lib/config";

export type SessionIdentity = { issuer: string; subject: string; email: string | null };

const REMOTE_ALGORITHMS = ["RS256", "PS256", "ES256", "EdDSA"];
const BUILT_IN_ALGORITHM = "HS256";
const CLOCK_TOLERANCE_SECONDS = 30;

let remoteKeys: { url: string; keys: JWTVerifyGetKey } | undefined;

/** Verifies a session JWT: signature, explicit algorithms, issuer, audience and expiry. Null when it fails. */
export async function verifySessionToken(token: string): Promise<SessionIdentity | null> {
  const { AUTH_ISSUER: issuer, AUTH_AUDIENCE: audience } = config();
  const options = { issuer, audience, clockTolerance: CLOCK_TOLERANCE_SECONDS, requiredClaims: ["sub", "exp"] };
  try {
    const { payload } = config().AUTH_JWKS_URL
      ? await jwtVerify(token, jwksFor(config().AUTH_JWKS_URL!), { ...options, algorithms: REMOTE_ALGORITHMS })
      : await jwtVerify(token, builtInSecret(), { ...options, algorithms: [BUILT_IN_ALGORITHM] });
    const email = typeof payload.email === "string" ? payload.email.toLowerCase() : null;
    return { issuer, subject: payload.sub!, email };
  } catch {
    return null;
  }
}

/** Issues a token from the built-in provider (AUTH_SECRET), for scripts, tests and the dashboard. */
export async function mintSessionToken(email: string, ttlSeconds = 60 * 60 * 24): Promise<string> {
  const normalisedEmail = email.trim().toLowerCase();
  const { AUTH_ISSUER, AUTH_AUDIENCE } = config();
  return new SignJWT({ email: normalisedEmail })
    .setProtectedHeader({ alg: BUILT_IN_ALGORITHM, typ: "JWT" })
    .setSubject(normalisedEmail)
    .setIssuer(AUTH_ISSUER)
    .setAudience(AUTH_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
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
  if (remoteKeys?.url !== url) remoteKeys = { url, keys: createRemoteJWKSet(new URL(url)) };
  return remoteKeys.keys;
}
