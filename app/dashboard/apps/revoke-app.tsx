"use client";

import { Button } from "@/components/ui/button";
import { errorClass } from "@/components/ui/styles";
import { useActionState } from "react";
import { revokeAppAction, type RevokeState } from "./actions";

export function RevokeApp({ id, name }: { id: string; name: string }) {
  const [state, revoke, pending] = useActionState<RevokeState, FormData>(revokeAppAction, null);
  return (
    <form action={revoke}>
      <input type="hidden" name="id" value={id} />
      <Button variant="danger" type="submit" disabled={pending} aria-label={`Disconnect ${name}`}>
        Disconnect
      </Button>
      {state && !state.ok && (
        <p role="alert" className={errorClass + " mt-2"}>
          {state.error}
        </p>
      )}
    </form>
  );
}
