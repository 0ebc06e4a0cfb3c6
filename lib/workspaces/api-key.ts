import { claimApiKey, liveKeySummary, revokeApiKey, rotateApiKey } from "@/lib/auth/store";
import { DomainError, unauthenticated } from "@/lib/http/errors";
import { requirePermission } from "./permissions";
import type { Principal } from "./types";

/** Mints the workspace's API key for a signed-in owner or admin; the raw key is returned once. */
export async function claimKey(principal: Principal): Promise<string> {
  if (principal.kind !== "session") {
    throw new DomainError("forbidden", "An API key cannot mint API keys; claim a key with a session token.");
  }
  requirePermission(principal, "api_key.claim", "Only an owner or admin of this workspace can claim its API key.");
  return claimApiKey(principal.workspaceId, principal.userId);
}

export async function revokeKey(principal: Principal): Promise<{ revoked_at: number }> {
  if (principal.kind !== "session") {
    throw new DomainError("forbidden", "An API key cannot revoke API keys; revoke the key with an owner's session token.");
  }
  requirePermission(principal, "api_key.revoke", "Only an owner of this workspace can revoke its API key.");
  const revoked = await revokeApiKey(principal.workspaceId, principal.userId);
  if (!revoked) throw new DomainError("not_found", "This workspace has no live API key to revoke.");
  return { revoked_at: revoked.revokedAt.getTime() };
}

/**
 * Replaces the workspace's live key for a signed-in owner (the dashboard's Rotate): the new raw key
 * is returned once and the old one stops working at once, as when the key rotates itself.
 */
export async function rotateKeyAsOwner(principal: Principal): Promise<string> {
  if (principal.kind !== "session") {
    throw new DomainError("forbidden", "An API key rotates itself; an owner rotates the workspace's key with a session.");
  }
  requirePermission(principal, "api_key.revoke", "Only an owner of this workspace can rotate its API key.");
  const live = await liveKeySummary(principal.workspaceId);
  const rotated = live ? await rotateApiKey(live.id) : null;
  if (!rotated) throw new DomainError("not_found", "This workspace has no live API key to rotate.");
  return rotated;
}

/**
 * Replaces the API key that authenticated this request: the new raw key is returned once and the
 * old one stops working at once. Any workspace's key may rotate itself, a machine account's too
 * (it has no members who could revoke it); a key still never mints a second live key.
 */
export async function rotateKey(principal: Principal): Promise<string> {
  if (principal.kind !== "api_key") {
    throw new DomainError(
      "forbidden",
      "Rotate an API key by sending this request with that key (Authorization: Bearer <api key>); with " +
        "a session token, an owner revokes the key (DELETE /api/billing/claim) and claims a new one " +
        "(POST /api/billing/claim).",
    );
  }
  const apiKey = await rotateApiKey(principal.apiKeyId);
  // Another rotation with the same key won the race and revoked it meanwhile.
  if (!apiKey) throw unauthenticated();
  return apiKey;
}
