import { LOCAL_PROVIDER_NOTICE } from "@/lib/billing/provider";

/** Every local billing page says, loudly, that it takes no payment. */
export function LocalNotice() {
  return (
    <p className="warning" role="alert">
      <strong>{LOCAL_PROVIDER_NOTICE}</strong> Subscriptions change exactly as Stripe&apos;s webhook would change them.
    </p>
  );
}
