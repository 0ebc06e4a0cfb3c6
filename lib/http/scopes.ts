/**
 * What an app connected with OAuth may be allowed to do, one scope a kind of access. Each
 * operation names the scope it needs (`scope` in its declaration); lib/workspaces/permissions.ts
 * maps each scope to the actions of the roles table, so a person can allow only what their role
 * in the workspace may do. The words are the consent page's.
 */
export const SCOPES = [
  "links:read",
  "links:write",
  "analytics:read",
  "domains:read",
  "domains:write",
  "webhooks:read",
  "webhooks:write",
  "members:read",
  "account:read",
] as const;

export type Scope = (typeof SCOPES)[number];

/** What the consent page says each scope allows, in a customer's words. */
export const SCOPE_WORDING: Readonly<Record<Scope, string>> = {
  "links:read": "See the workspace's links, their QR codes, tags and imports",
  "links:write": "Create links, change where they point, archive and restore them, and edit tags and QR designs",
  "analytics:read": "See scan counts",
  "domains:read": "See the workspace's custom domains",
  "domains:write": "Add, check and remove custom domains",
  "webhooks:read": "See the workspace's webhooks and their deliveries",
  "webhooks:write": "Add, change, test and remove webhooks",
  "members:read": "See who is in the workspace",
  "account:read": "See the workspace's name, plan and how many links it has made",
};

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** A scope parameter (space-separated, RFC 6749 §3.3) as a list without repeats, or the names it carries that are no scope. */
export function parseScopes(value: string): { scopes: Scope[]; unknown: string[] } {
  const names = [...new Set(value.split(" ").filter((name) => name.length > 0))];
  return { scopes: names.filter(isScope), unknown: names.filter((name) => !isScope(name)) };
}
