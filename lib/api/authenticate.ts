import { hasValidFormat, looksLikeApiKey } from "@/lib/auth/api-keys";
import { looksLikeJwt, verifySessionToken } from "@/lib/auth/session-tokens";
import { findLiveKey } from "@/lib/auth/store";
import { config } from "@/lib/config";
import { notAMember, unauthenticated } from "@/lib/http/errors";
import { principalOfAccessToken } from "@/lib/oauth/service";
import { looksLikeAccessToken } from "@/lib/oauth/tokens";
import { ensureUser, findRole } from "@/lib/workspaces/store";
import type { Principal } from "@/lib/workspaces/types";

const ACCESS_TOKEN_REFUSED =
  "The access token is not valid: it has expired, was revoked, or was issued for another server. Refresh it, or connect again.";

/**
 * Resolves a bearer credential (an API key, an OAuth access token or a session JWT) to a principal, and the workspace it acts on. A caller asking
 * for a workspace it is not a member of (or that does not exist) gets the same 401 either way.
 */
export async function authenticateBearer(request: Request, token: string): Promise<Principal> {
  const prefix = config().API_KEY_PREFIX;
  if (looksLikeApiKey(token, prefix)) {
    const key = hasValidFormat(token, prefix) ? await findLiveKey(token) : null;
    if (!key) throw unauthenticated();
    return { kind: "api_key", apiKeyId: key.id, workspaceId: key.workspaceId };
  }
  // An app connected with OAuth acts on the workspace its grant names, like a key (X-Workspace-Id is not read).
  if (looksLikeAccessToken(token)) {
    const principal = await principalOfAccessToken(token);
    if (!principal) throw unauthenticated(ACCESS_TOKEN_REFUSED, "invalid_token");
    return principal;
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
