"use client";

import { Button } from "@/components/ui/button";
import { ErrorSentence } from "@/components/ui/outcome";
import { useActionState } from "react";
import { checkoutAction, portalAction, type RedirectState } from "./actions";

export function CheckoutButton({ plan, interval, label }: { plan: string; interval: string; label: string }) {
  const [state, action, pending] = useActionState<RedirectState, FormData>(checkoutAction, null);
  return (
    <form action={action}>
      <input type="hidden" name="plan" value={plan} />
      <input type="hidden" name="interval" value={interval} />
      <Button variant="primary" type="submit" disabled={pending}>
        {label}
      </Button>
      <ErrorSentence error={state?.error} />
    </form>
  );
}

export function PortalButton() {
  const [state, action, pending] = useActionState<RedirectState>(portalAction, null);
  return (
    <form action={action}>
      <Button type="submit" disabled={pending}>
        Open the billing portal
      </Button>
      <ErrorSentence error={state?.error} />
    </form>
  );
}
