"use client";

import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { errorFor } from "@/components/ui/field-error";
import { ActionOutcome } from "@/components/ui/outcome";
import { cardClass, mutedClass } from "@/components/ui/styles";
import { useActionState } from "react";
import { type LinkEditState, protectLinkAction } from "../actions";

/** Sets, changes or removes the link's password; the password itself is never shown back. */
export function PasswordForm({ id, isProtected, canEdit }: { id: string; isProtected: boolean; canEdit: boolean }) {
  const [state, action, pending] = useActionState<LinkEditState, FormData>(protectLinkAction, null);
  return (
    <section aria-labelledby="password-heading" className={cardClass}>
      <h2 id="password-heading" className="mt-0 text-lg">
        Password
      </h2>
      <p className={mutedClass + " mt-0"}>
        {isProtected
          ? "Visitors must enter this link's password before they go on. It is stored so that no one, us included, can read it back."
          : "Anyone with the link goes straight to its destination. Add a password to ask visitors for it first."}
      </p>
      {canEdit ? (
        <form action={action} className="grid gap-3 md:grid-cols-[1fr_auto_auto] md:items-start" key={JSON.stringify(state)}>
          <input type="hidden" name="id" value={id} />
          <TextField
            id="link-password"
            label={isProtected ? "New password" : "Password"}
            help="At least 4 characters. Scripts can send it in a Link-Password header instead."
            error={errorFor("password", state)}
            name="password"
            type="password"
            autoComplete="new-password"
          />
          <Button type="submit" name="intent" value="set" variant="primary" className="md:mt-5" disabled={pending}>
            {isProtected ? "Change password" : "Add password"}
          </Button>
          {isProtected && (
            <Button type="submit" name="intent" value="remove" className="md:mt-5" disabled={pending}>
              Remove password
            </Button>
          )}
          <div className="md:col-span-3">
            <ActionOutcome state={state?.ok || !state?.field ? state : null} />
          </div>
        </form>
      ) : (
        <p className={mutedClass}>Changing the password needs an active subscription and the right to edit this link.</p>
      )}
    </section>
  );
}
