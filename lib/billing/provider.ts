import { config, settleConfig } from "@/lib/config";
import { DomainError } from "@/lib/http/errors";
import { log } from "@/lib/log";
import { processSingleton } from "@/lib/process-singleton";
import { localProvider } from "./local-provider";
import type { BillingProvider } from "./provider-contract";
import { stripeProvider } from "./stripe-provider";

/** The configured provider; 503 on a production deployment that set up neither Stripe nor BILLING_PROVIDER=local. */
export function billingProvider(): BillingProvider {
  const { BILLING_PROVIDER: name, NODE_ENV } = config();
  if (!name) {
    throw new DomainError(
      "not_configured",
      "Billing is not set up on this deployment, so subscriptions cannot be started or managed here. Existing links keep resolving.",
    );
  }
  if (name === "local" && NODE_ENV === "production") announceOnce(() => log().warn(LOCAL_IN_PRODUCTION_WARNING));
  return name === "stripe" ? stripeProvider : localProvider;
}

export const LOCAL_PROVIDER_NOTICE =
  "The local billing provider takes no payment: its checkout grants subscriptions without charging " +
  "anyone. Set STRIPE_SECRET_KEY to bill for real.";

const LOCAL_IN_PRODUCTION_WARNING = `WARNING: BILLING_PROVIDER=local on a production deployment. ${LOCAL_PROVIDER_NOTICE}`;

/**
 * At start, with the operator's NODE_ENV: says which provider bills (loudly when production gives
 * subscriptions away), and settles it for the process, because Next then sets NODE_ENV to
 * production for the app's own code, which would switch a development server's local provider off.
 */
export function settleBillingProvider(): void {
  const { BILLING_PROVIDER: provider, NODE_ENV } = config();
  if (provider) settleConfig({ BILLING_PROVIDER: provider });
  announceOnce(() => {
    if (provider === "local" && NODE_ENV === "production") log().warn(LOCAL_IN_PRODUCTION_WARNING);
    else if (!provider)
      log().warn(
        "Billing is not set up (neither STRIPE_SECRET_KEY nor BILLING_PROVIDER=local): checkout and the billing portal answer 503.",
      );
    else
      log().info(
        { provider },
        provider === "local" ? "billing through the local provider (no real payment is taken)" : "billing through Stripe",
      );
  });
}

const announced = processSingleton("billingProviderAnnounced", () => ({ done: false }));

/**
 * Once per process. The start script speaks first when it runs; without it (Vercel, `next
 * start`) the first billing request of a production deployment on the local provider does.
 */
function announceOnce(announce: () => void): void {
  if (announced.get().done) return;
  announced.get().done = true;
  announce();
}
