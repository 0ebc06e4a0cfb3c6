import { createHash, randomBytes } from "node:crypto";

/** 256 random bits, URL-safe: the secret in an invitation link. */
export function newInvitationToken(): string {
  return randomBytes(32).toString("base64url");
}

/** What is stored and looked up: the token's SHA-256, so a database read never yields a usable link. */
export function hashInvitationToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
