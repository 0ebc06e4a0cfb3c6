"use client";

import { type ConsentState, decideConsentAction } from "@/app/dashboard/apps/consent-actions";
import { Button } from "@/components/ui/button";
import { SelectField } from "@/components/ui/field";
import { Checkbox } from "@/components/ui/input";
import { errorClass, labelClass, mutedClass } from "@/components/ui/styles";
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
        <SelectField
          id="consent-workspace"
          label="Workspace"
          name="workspace"
          controlClassName="mt-1"
          value={workspaceId}
          onChange={(event) => setWorkspaceId(event.target.value)}
        >
          {workspaces.map((workspace) => (
            <option key={workspace.id} value={workspace.id}>
              {workspace.label}
            </option>
          ))}
        </SelectField>
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
            <Checkbox
              key={`${chosen?.id}-${scope}`}
              className={"flex items-start gap-2" + (allowed ? "" : ` ${mutedClass}`)}
              inputClassName="mt-1"
              name="scope"
              value={scope}
              defaultChecked={allowed}
              disabled={!allowed}
              label={
                <span>
                  {wording}
                  {!allowed && ` — not as ${chosen?.role === "admin" ? "an" : "a"} ${chosen?.role} of this workspace`}
                </span>
              }
            />
          );
        })}
      </fieldset>
      <div className="flex flex-wrap gap-2">
        <Button type="submit" name="decision" value="allow" variant="primary" disabled={pending}>
          Allow
        </Button>
        <Button type="submit" name="decision" value="deny" disabled={pending}>
          Deny
        </Button>
      </div>
      {state && (
        <p role="alert" className={errorClass}>
          {state.error}
        </p>
      )}
    </form>
  );
}
