import { forbidden } from "@/lib/http/errors";
import type { Principal } from "./types";

/**
 * What each kind of caller may do. An API key acts for its workspace on links, but cannot
 * manage keys (a key must never mint or revoke keys). Members create links and edit their own.
 * Owners and admins (and the key) start and manage the subscription.
 */
export type Action =
  | "links.read" | "links.create" | "links.edit_any" | "links.edit_own" | "api_key.claim" | "api_key.revoke" | "members.read" | "billing.manage"
  | "domains.read" | "domains.manage";

const ALLOWED: Record<Action, { roles: readonly string[]; apiKey: boolean }> = {
  "links.read": { roles: ["owner", "admin", "member"], apiKey: true },
  "links.create": { roles: ["owner", "admin", "member"], apiKey: true },
  "links.edit_any": { roles: ["owner", "admin"], apiKey: true },
  "links.edit_own": { roles: ["owner", "admin", "member"], apiKey: true },
  "api_key.claim": { roles: ["owner", "admin"], apiKey: false },
  "api_key.revoke": { roles: ["owner"], apiKey: false },
  "members.read": { roles: ["owner", "admin", "member"], apiKey: true },
  "billing.manage": { roles: ["owner", "admin"], apiKey: true },
  "domains.read": { roles: ["owner", "admin", "member"], apiKey: true },
  "domains.manage": { roles: ["owner", "admin"], apiKey: true },
};

export function can(principal: Principal, action: Action): boolean {
  const rule = ALLOWED[action];
  return principal.kind === "api_key" ? rule.apiKey : rule.roles.includes(principal.role);
}

export function requirePermission(principal: Principal, action: Action, refusal: string): void {
  if (!can(principal, action)) throw forbidden(refusal);
}
