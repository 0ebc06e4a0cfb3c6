"use client";

import { useActionState } from "react";
import { ActionOutcome } from "@/components/ui/outcome";
import { buttonClass, inputClass, labelClass } from "@/components/ui/styles";
import { changeRoleAction, inviteAction, leaveAction, type MemberState, removeMemberAction, resendAction } from "../actions";

const ROLES = ["viewer", "member", "admin", "owner"] as const;

export function InviteForm({ managesOwners }: { managesOwners: boolean }) {
  const [state, action, pending] = useActionState<MemberState, FormData>(inviteAction, null);
  return (
    <form action={action} className="grid gap-3 sm:grid-cols-[2fr_1fr_auto] sm:items-end">
      <div>
        <label htmlFor="invite-email" className={labelClass}>
          E-mail address
        </label>
        <input id="invite-email" name="email" type="email" required className={inputClass} />
      </div>
      <div>
        <label htmlFor="invite-role" className={labelClass}>
          Role
        </label>
        <select id="invite-role" name="role" defaultValue="member" className={inputClass}>
          {ROLES.filter((role) => role !== "owner" || managesOwners).map((role) => (
            <option key={role} value={role}>
              {role}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" className={buttonClass.primary} disabled={pending}>
        Send invitation
      </button>
      <div className="sm:col-span-3">
        <ActionOutcome state={state} />
      </div>
    </form>
  );
}

export function MemberActions(props: {
  id: string;
  email: string;
  role: string;
  managesOwners: boolean;
  kind: "member" | "invitation";
}) {
  const [roleState, changeRole] = useActionState<MemberState, FormData>(changeRoleAction, null);
  const [removeState, remove] = useActionState<MemberState, FormData>(removeMemberAction, null);
  const [resendState, resend] = useActionState<MemberState, FormData>(resendAction, null);
  return (
    <div className="flex flex-wrap items-center gap-2">
      {props.kind === "member" && (
        <form action={changeRole} className="flex items-center gap-1">
          <input type="hidden" name="id" value={props.id} />
          <label htmlFor={`role-${props.id}`} className="sr-only">
            Role of {props.email}
          </label>
          <select id={`role-${props.id}`} name="role" defaultValue={props.role} className={inputClass + " w-auto py-1"}>
            {ROLES.filter((role) => role !== "owner" || props.managesOwners).map((role) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </select>
          <button type="submit" className={buttonClass.small}>
            Change role
          </button>
        </form>
      )}
      {props.kind === "invitation" && (
        <form action={resend}>
          <input type="hidden" name="id" value={props.id} />
          <button type="submit" className={buttonClass.small} aria-label={`Re-send the invitation to ${props.email}`}>
            Re-send
          </button>
        </form>
      )}
      <form action={remove}>
        <input type="hidden" name="id" value={props.id} />
        <button
          type="submit"
          className={buttonClass.small}
          aria-label={`${props.kind === "member" ? "Remove" : "Revoke the invitation of"} ${props.email}`}
        >
          {props.kind === "member" ? "Remove" : "Revoke"}
        </button>
      </form>
      <ActionOutcome state={roleState ?? removeState ?? resendState} />
    </div>
  );
}

export function LeaveButton({ id }: { id: string }) {
  const [state, leave, pending] = useActionState<MemberState, FormData>(leaveAction, null);
  return (
    <form action={leave}>
      <input type="hidden" name="id" value={id} />
      <button type="submit" className={buttonClass.danger} disabled={pending}>
        Leave this workspace
      </button>
      <ActionOutcome state={state} />
    </form>
  );
}
