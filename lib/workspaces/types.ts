export type Role = "owner" | "admin" | "member" | "viewer";

export const ROLES: readonly Role[] = ["owner", "admin", "member", "viewer"];

import type { Scope } from "@/lib/http/scopes";

/**
 * An app a person connected with OAuth acts as that person, within the scopes they allowed:
 * the grant it holds (lib/oauth), read on every request.
 */
export type OAuthGrantRef = { id: string; clientId: string; scopes: readonly Scope[] };

/**
 * Who is calling and on behalf of which workspace; decided once per request. A session with a
 * grant is an app acting for the person (their role, narrowed to the grant's scopes).
 */
export type Principal =
  | { kind: "session"; userId: string; workspaceId: string; role: Role; grant?: OAuthGrantRef }
  | { kind: "api_key"; apiKeyId: string; workspaceId: string };
