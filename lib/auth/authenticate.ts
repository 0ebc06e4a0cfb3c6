import { config } from "@/lib/config";
import { notAMember, unauthenticated } from "@/lib/http/errors";
import { findRole } from "@/lib/workspaces/membership";
import type { Principal } from "@/lib/workspaces/types";
import { ensureUser } from "@/lib/workspaces/users";
import { findLiveKey } from "./api-key-store";
import { hasValidFormat, looksLikeApiKey } from "./api-keys";
import { looksLikeJwt, verifySessionToken } from "./session-tokens";

/** The Authorization header's scheme, lower-cased ("bearer", "payment", …), or null without one. */
export function authorizationScheme(request: Request): string | null {
  return request.headers.get("authorization")?.trim().split(/\s+/)[0]?.toLowerCase() || null;
}

/** The bearer token; anything else (no header, another scheme, a malformed value) is unauthenticated. */
export function bearerToken(request: Request): string {
  const match = /^bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  if (!match) throw unauthenticated();
  return match[1]!;
}

/**
 * Resolves a bearer credential to a principal, and the workspace it acts on. A caller asking
 * for a workspace it is not a member of (or that does not exist) gets the same 401 either way.
 */
export async function authenticateBearer(request: Request, token: string): Promise<Principal> {
  const prefix = config().API_KEY_PREFIX;
  if (looksLikeApiKey(token, prefix)) {
    const key = hasValidFormat(token, prefix) ? await findLiveKey(token) : null;
    if (!key) throw unauthenticated();
    return { kind: "api_key", apiKeyId: key.id, workspaceId: key.workspaceId };
  }
  const identity = looksLikeJwt(token) ? await verifySessionToken(token) : null;
  if (!identity) throw unauthenticated();
  const user = await ensureUser(identity);
  const requested = request.headers.get("x-workspace-id")?.trim();
  if (!requested || requested === user.personalWorkspaceId) {
    return { kind: "session", userId: user.userId, workspaceId: user.personalWorkspaceId, role: "owner" };
  }
  const role = await findRole(requested, user.userId);
  if (!role) throw notAMember();
  return { kind: "session", userId: user.userId, workspaceId: requested, role };
}
