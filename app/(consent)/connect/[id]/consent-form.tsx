"use client";

import { type ConsentState, decideConsentAction } from "@/app/dashboard/apps/consent-actions";
import { buttonClass, errorClass, inputClass, labelClass, mutedClass } from "@/components/ui/styles";
import { useActionState, useState } from "react";

type Option = { id: string; label: string; role: string; grantable: readonly string[] };

export function ConsentForm({
  request,
  scopes,
  workspaces,
}: {
  request: string;
  scopes: readonly { scope: string; wording: string }[];
  workspaces: readonly Option[];
}) {
  const [state, decide, pending] = useActionState<ConsentState, FormData>(decideConsentAction, null);
  const [workspaceId, setWorkspaceId] = useState(workspaces[0]?.id ?? "");
  const chosen = workspaces.find((workspace) => workspace.id === workspaceId) ?? workspaces[0];
  return (
    <form action={decide} className="space-y-4">
      <input type="hidden" name="request" value={request} />
      {workspaces.length > 1 ? (
        <div>
          <label htmlFor="consent-workspace" className={labelClass}>
            Workspace
          </label>
          <select
            id="consent-workspace"
            name="workspace"
            className={inputClass + " mt-1"}
            value={workspaceId}
            onChange={(event) => setWorkspaceId(event.target.value)}
          >
            {workspaces.map((workspace) => (
              <option key={workspace.id} value={workspace.id}>
                {workspace.label}
              </option>
            ))}
          </select>
        </div>
      ) : (
        <p className="m-0">
          Workspace: <strong>{chosen?.label}</strong>
          <input type="hidden" name="workspace" value={chosen?.id ?? ""} />
        </p>
      )}
      <fieldset className="space-y-2">
        <legend className={labelClass}>It may</legend>
        {scopes.map(({ scope, wording }) => {
          const allowed = chosen?.grantable.includes(scope) ?? false;
          return (
            <div key={`${chosen?.id}-${scope}`} className="flex items-start gap-2">
              <input
                id={`scope-${scope}`}
                type="checkbox"
                name="scope"
                value={scope}
                defaultChecked={allowed}
                disabled={!allowed}
                className="mt-1"
              />
              <label htmlFor={`scope-${scope}`} className={allowed ? "" : mutedClass}>
                {wording}
                {!allowed && ` — not as ${chosen?.role === "admin" ? "an" : "a"} ${chosen?.role} of this workspace`}
              </label>
            </div>
          );
        })}
      </fieldset>
      <div className="flex flex-wrap gap-2">
        <button type="submit" name="decision" value="allow" className={buttonClass.primary} disabled={pending}>
          Allow
        </button>
        <button type="submit" name="decision" value="deny" className={buttonClass.secondary} disabled={pending}>
          Deny
        </button>
      </div>
      {state && (
        <p role="alert" className={errorClass}>
          {state.error}
        </p>
      )}
    </form>
  );
}
