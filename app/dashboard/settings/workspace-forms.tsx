"use client";

import { useActionState } from "react";
import { buttonClass, errorClass, inputClass, labelClass, noticeClass } from "@/components/ui/styles";
import { createWorkspaceAction, type MemberState, renameWorkspaceAction } from "../actions";

function Outcome({ state }: { state: MemberState }) {
  if (!state) return null;
  return state.ok ? (
    <p role="status" className={noticeClass + " mt-2"}>
      {state.value}
    </p>
  ) : (
    <p role="alert" className={errorClass + " mt-2"}>
      {state.error}
    </p>
  );
}

export function RenameWorkspaceForm({ name }: { name: string }) {
  const [state, action, pending] = useActionState<MemberState, FormData>(renameWorkspaceAction, null);
  return (
    <form action={action} className="flex flex-wrap items-end gap-3" key={state?.ok ? state.value : "rename"}>
      <div className="grow">
        <label htmlFor="workspace-name" className={labelClass}>
          Workspace name
        </label>
        <input id="workspace-name" name="name" required defaultValue={name} className={inputClass} />
      </div>
      <button type="submit" className={buttonClass.secondary} disabled={pending}>
        Rename
      </button>
      <div className="w-full">
        <Outcome state={state} />
      </div>
    </form>
  );
}

export function CreateWorkspaceForm() {
  const [state, action, pending] = useActionState<MemberState, FormData>(createWorkspaceAction, null);
  return (
    <form action={action} className="flex flex-wrap items-end gap-3">
      <div className="grow">
        <label htmlFor="new-workspace-name" className={labelClass}>
          New workspace&apos;s name
        </label>
        <input id="new-workspace-name" name="name" required placeholder="Acme Menus" className={inputClass} />
      </div>
      <button type="submit" className={buttonClass.primary} disabled={pending}>
        Create workspace
      </button>
      <div className="w-full">
        <Outcome state={state} />
      </div>
    </form>
  );
}
