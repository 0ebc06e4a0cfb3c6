import { clock } from "@/lib/clock";
import { forbidden } from "@/lib/http/errors";
import { requirePermission } from "@/lib/workspaces/permissions";
import type { Principal, Role } from "@/lib/workspaces/types";
import type { InvitationRow, MembershipRow } from "./store";

/** A person's session: the only principal that manages people. */
export type SessionPrincipal = Extract<Principal, { kind: "session" }>;

/** A member or a pending invitation, as the members list shows them. */
export type Member = {
  id: string;
  email: string | null;
  role: Role;
  status: "active" | "invited" | "expired";
  created_at: number;
};

export const PEOPLE_NEED_A_PERSON =
  "An API key cannot manage people; invite, change roles and remove members with an owner's or admin's session token.";
export const OWNERS_ONLY = "Only an owner can invite, promote, demote or remove an owner.";
export const NO_SUCH_MEMBER = "No member or pending invitation with this id exists in this workspace.";

/** People are managed only with a person's session, by a role the table allows. */
export function requireManager(
  principal: Principal,
  action: "members.invite" | "members.change_role",
  refusal: string,
): SessionPrincipal {
  if (principal.kind !== "session") throw forbidden(PEOPLE_NEED_A_PERSON);
  requirePermission(principal, action, refusal);
  return principal;
}

export function presentMembership(membership: MembershipRow): Member {
  return {
    id: membership.id,
    email: membership.email,
    role: membership.role,
    status: "active",
    created_at: membership.createdAt.getTime(),
  };
}

export function presentInvitation(invitation: InvitationRow): Member {
  const expired = invitation.expiresAt.getTime() <= clock().now();
  return {
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    status: expired ? "expired" : "invited",
    created_at: invitation.createdAt.getTime(),
  };
}
