"use client";

import { Confirm } from "@/components/ui/confirm";
import { errorFor, FieldError, fieldProps } from "@/components/ui/field-error";
import { ActionOutcome } from "@/components/ui/outcome";
import { buttonClass, inputClass, labelClass } from "@/components/ui/styles";
import { useNotify } from "@/components/ui/toaster";
import { useActionState } from "react";
import {
  changeRoleAction,
  inviteAction,
  type InviteState,
  leaveAction,
  type MemberState,
  removeMemberAction,
  resendAction,
} from "./actions";

const ROLES = ["viewer", "member", "admin", "owner"] as const;

export function InviteForm({ managesOwners }: { managesOwners: boolean }) {
  const [state, action, pending] = useActionState<InviteState, FormData>(inviteAction, null);
  return (
    // Drawn afresh with each attempt: a refusal puts back what was typed.
    <form action={action} className="grid gap-3 sm:grid-cols-[2fr_1fr_auto] sm:items-end" key={state?.attempt ?? 0}>
      <div>
        <label htmlFor="invite-email" className={labelClass}>
          E-mail address
        </label>
        <input
          id="invite-email"
          name="email"
          type="email"
          required
          defaultValue={state?.typed?.email}
          className={inputClass}
          {...fieldProps("email", "invite-email-error", state)}
        />
        <FieldError id="invite-email-error" error={errorFor("email", state)} />
      </div>
      <div>
        <label htmlFor="invite-role" className={labelClass}>
          Role
        </label>
        <select id="invite-role" name="role" defaultValue={state?.typed?.role ?? "member"} className={inputClass}>
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
        <ActionOutcome state={state?.ok || !state?.field ? state : null} />
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
  const notify = useNotify();
  // The row goes with the member or invitation: the outcome is told by the page's notices.
  const [removeState, remove, removing] = useActionState<MemberState, FormData>(async (previous, form) => {
    const removed = await removeMemberAction(previous, form);
    if (removed?.ok) notify(removed.value);
    return removed;
  }, null);
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
      <Confirm
        small
        label={props.kind === "member" ? "Remove" : "Revoke"}
        what={props.kind === "member" ? props.email : `the invitation of ${props.email}`}
        question={
          props.kind === "member"
            ? `Remove ${props.email} from this workspace? They lose access at once; their links stay. ` +
              "An API key they created is revoked with them."
            : `Revoke the invitation of ${props.email}? The link they were sent stops working; you can invite them again later.`
        }
        confirm={props.kind === "member" ? `Yes, remove ${props.email}` : "Yes, revoke the invitation"}
        action={remove}
        fields={{ id: props.id }}
        pending={removing}
      />
      <ActionOutcome state={roleState ?? (removeState?.ok ? null : removeState) ?? resendState} />
    </div>
  );
}

export function LeaveButton({ id }: { id: string }) {
  const [state, leave, pending] = useActionState<MemberState, FormData>(leaveAction, null);
  return (
    <div className="space-y-2">
      <Confirm
        label="Leave this workspace"
        question="Leave this workspace? You lose access to its links, analytics and settings until someone invites you again."
        confirm="Yes, leave this workspace"
        action={leave}
        fields={{ id }}
        pending={pending}
      />
      <ActionOutcome state={state} />
    </div>
  );
}
