export type Role = "owner" | "admin" | "member" | "viewer";

export const ROLES: readonly Role[] = ["owner", "admin", "member", "viewer"];

/** Who is calling and on behalf of which workspace; decided once per request. */
export type Principal =
  | { kind: "session"; userId: string; workspaceId: string; role: Role }
  | { kind: "api_key"; apiKeyId: string; workspaceId: string };
