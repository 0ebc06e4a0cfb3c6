import { forbidden } from "@/lib/http/errors";
import type { Scope } from "@/lib/http/scopes";
import type { Principal, Role } from "./types";

/**
 * Everything a caller may be allowed to do in a workspace. Every capability asks `can` or
 * `requirePermission` here (route files and server actions alike call those capabilities), so
 * this table is the one place roles are decided; docs/teams.md's table is drawn from it.
 */
export type Action =
  | "links.read" // list and read links, download their QR artwork and logos
  | "links.create"
  | "links.edit_any" // repoint, archive and restyle any link of the workspace, set the workspace's logo
  | "links.edit_own" // the same, on links the caller created
  | "analytics.read"
  | "members.read" // the member and invitation list
  | "members.invite" // invite, re-send and revoke invitations
  | "members.change_role"
  | "members.remove"
  | "members.manage_owners" // make someone an owner, or demote or remove an owner
  | "workspace.rename"
  | "domains.read"
  | "domains.manage" // add, verify and delete custom domains
  | "billing.manage" // checkout and the billing portal
  | "webhooks.manage" // add, change, test and delete webhooks, read their delivery log
  | "escrow.read" // download the signed escrow of every code the workspace issued
  | "api_key.claim"
  | "api_key.revoke"
  | "apps.manage"; // see and revoke every app connected with OAuth (anyone sees and revokes their own)

type Rule = { roles: readonly Role[]; apiKey: boolean };

const EVERYONE: readonly Role[] = ["owner", "admin", "member", "viewer"];
const CREATORS: readonly Role[] = ["owner", "admin", "member"];
const MANAGERS: readonly Role[] = ["owner", "admin"];
const OWNERS: readonly Role[] = ["owner"];

/**
 * viewer reads (links, artwork, analytics, members, domains) and creates nothing. member creates
 * links and edits its own. admin edits every link and manages people, domains, billing and the
 * key's claim; only an owner makes or unmakes owners and revokes the key. An API key acts on
 * links, domains and billing for its workspace, but never on people or keys: a leaked key must
 * not be able to let someone in, or mint a second key.
 */
const ALLOWED: Record<Action, Rule> = {
  "links.read": { roles: EVERYONE, apiKey: true },
  "links.create": { roles: CREATORS, apiKey: true },
  "links.edit_any": { roles: MANAGERS, apiKey: true },
  "links.edit_own": { roles: CREATORS, apiKey: true },
  "analytics.read": { roles: EVERYONE, apiKey: true },
  "members.read": { roles: EVERYONE, apiKey: true },
  "members.invite": { roles: MANAGERS, apiKey: false },
  "members.change_role": { roles: MANAGERS, apiKey: false },
  "members.remove": { roles: MANAGERS, apiKey: false },
  "members.manage_owners": { roles: OWNERS, apiKey: false },
  "workspace.rename": { roles: MANAGERS, apiKey: false },
  "domains.read": { roles: EVERYONE, apiKey: true },
  "domains.manage": { roles: MANAGERS, apiKey: true },
  "billing.manage": { roles: MANAGERS, apiKey: true },
  "webhooks.manage": { roles: MANAGERS, apiKey: true },
  "escrow.read": { roles: MANAGERS, apiKey: true },
  "api_key.claim": { roles: MANAGERS, apiKey: false },
  "api_key.revoke": { roles: OWNERS, apiKey: false },
  "apps.manage": { roles: MANAGERS, apiKey: false },
};

/**
 * The actions each OAuth scope covers. A person may allow a scope when their role may do at least
 * one of its actions (a viewer can never allow a write), and an app may then do only what the
 * role and the scopes both allow. A scope without actions (account:read) reads what every member
 * sees. A scope also brings the reads its actions start from (SCOPE_READS): changing a link reads
 * it first, and scans are counted by link; those reads never make a scope grantable.
 */
const SCOPE_ACTIONS: Record<Scope, readonly Action[]> = {
  "links:read": ["links.read"],
  "links:write": ["links.create", "links.edit_own", "links.edit_any"],
  "analytics:read": ["analytics.read"],
  "domains:read": ["domains.read"],
  "domains:write": ["domains.manage"],
  "webhooks:read": ["webhooks.manage"],
  "webhooks:write": ["webhooks.manage"],
  "members:read": ["members.read"],
  "account:read": [],
};

const SCOPE_READS: Partial<Record<Scope, readonly Action[]>> = {
  "links:write": ["links.read"],
  "analytics:read": ["links.read"],
  "domains:write": ["domains.read"],
};

export function can(principal: Principal, action: Action): boolean {
  if (principal.kind === "api_key") return ALLOWED[action].apiKey;
  if (!roleMay(principal.role, action)) return false;
  return (
    !principal.grant ||
    principal.grant.scopes.some((scope) => SCOPE_ACTIONS[scope].includes(action) || SCOPE_READS[scope]?.includes(action))
  );
}

/** Whether a person of this role may allow an app this scope. */
export function roleMayGrant(role: Role, scope: Scope): boolean {
  const actions = SCOPE_ACTIONS[scope];
  return actions.length === 0 || actions.some((action) => roleMay(role, action));
}

export function roleMay(role: Role, action: Action): boolean {
  return ALLOWED[action].roles.includes(role);
}

export function requirePermission(principal: Principal, action: Action, refusal: string): void {
  if (!can(principal, action)) throw forbidden(refusal);
}

/** The table itself, for docs/teams.md's table and its test. */
export function permissionTable(): Readonly<Record<Action, Rule>> {
  return ALLOWED;
}
