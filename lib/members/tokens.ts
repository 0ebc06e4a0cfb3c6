import { newSecretToken } from "@/lib/db/random";
import { createHash } from "node:crypto";

/** 256 random bits, URL-safe: the secret in an invitation link (its shape is checked by the route wrapper). */
export function newInvitationToken(): string {
  return newSecretToken();
}

/** What is stored and looked up: the token's SHA-256, so a database read never yields a usable link. */
export function hashInvitationToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
