"use client";

import { Button } from "@/components/ui/button";
import { Confirm } from "@/components/ui/confirm";
import { SelectField, TextField } from "@/components/ui/field";
import { errorFor } from "@/components/ui/field-error";
import { ActionOutcome } from "@/components/ui/outcome";
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

/** The roles one may give: owner only by those who manage owners. */
function RoleOptions({ managesOwners }: { managesOwners: boolean }) {
  return ROLES.filter((role) => role !== "owner" || managesOwners).map((role) => (
    <option key={role} value={role}>
      {role}
    </option>
  ));
}

export function InviteForm({ managesOwners }: { managesOwners: boolean }) {
  const [state, action, pending] = useActionState<InviteState, FormData>(inviteAction, null);
  return (
    // Drawn afresh with each attempt: a refusal puts back what was typed.
    <form action={action} className="grid gap-3 sm:grid-cols-[2fr_1fr_auto] sm:items-end" key={state?.attempt ?? 0}>
      <TextField
        id="invite-email"
        label="E-mail address"
        error={errorFor("email", state)}
        name="email"
        type="email"
        required
        defaultValue={state?.typed?.email}
      />
      <SelectField id="invite-role" label="Role" name="role" defaultValue={state?.typed?.role ?? "member"}>
        <RoleOptions managesOwners={managesOwners} />
      </SelectField>
      <Button type="submit" variant="primary" disabled={pending}>
        Send invitation
      </Button>
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
          <SelectField
            id={`role-${props.id}`}
            label={`Role of ${props.email}`}
            labelClassName="sr-only"
            name="role"
            defaultValue={props.role}
            controlClassName="w-auto py-1"
          >
            <RoleOptions managesOwners={props.managesOwners} />
          </SelectField>
          <Button type="submit" variant="small">
            Change role
          </Button>
        </form>
      )}
      {props.kind === "invitation" && (
        <form action={resend}>
          <input type="hidden" name="id" value={props.id} />
          <Button type="submit" variant="small" aria-label={`Re-send the invitation to ${props.email}`}>
            Re-send
          </Button>
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
