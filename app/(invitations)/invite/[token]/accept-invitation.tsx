"use client";

import { acceptInvitationAction, type MemberState } from "@/app/dashboard/members/actions";
import { Button } from "@/components/ui/button";
import { errorClass } from "@/components/ui/styles";
import { useActionState } from "react";

export function AcceptInvitation({ token }: { token: string }) {
  const [state, accept, pending] = useActionState<MemberState, FormData>(acceptInvitationAction, null);
  return (
    <form action={accept}>
      <input type="hidden" name="token" value={token} />
      <Button variant="primary" type="submit" disabled={pending}>
        Accept the invitation
      </Button>
      {state && !state.ok && (
        <p role="alert" className={errorClass + " mt-3"}>
          {state.error}
        </p>
      )}
    </form>
  );
}
