"use client";

import { ErrorSentence } from "@/components/ui/outcome";
import { buttonClass } from "@/components/ui/styles";
import { useActionState } from "react";
import { checkoutAction, portalAction, type RedirectState } from "./actions";

export function CheckoutButton({ plan, interval, label }: { plan: string; interval: string; label: string }) {
  const [state, action, pending] = useActionState<RedirectState, FormData>(checkoutAction, null);
  return (
    <form action={action}>
      <input type="hidden" name="plan" value={plan} />
      <input type="hidden" name="interval" value={interval} />
      <button type="submit" className={buttonClass.primary} disabled={pending}>
        {label}
      </button>
      <ErrorSentence error={state?.error} />
    </form>
  );
}

export function PortalButton() {
  const [state, action, pending] = useActionState<RedirectState>(portalAction, null);
  return (
    <form action={action}>
      <button type="submit" className={buttonClass.secondary} disabled={pending}>
        Open the billing portal
      </button>
      <ErrorSentence error={state?.error} />
    </form>
  );
}
