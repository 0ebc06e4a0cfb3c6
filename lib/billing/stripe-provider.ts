import { config } from "@/lib/config";
import { DomainError } from "@/lib/http/errors";
import { log } from "@/lib/log";
import Stripe from "stripe";
import { CURRENCY, stripePriceId } from "./plans";
import type { BillingProvider } from "./provider-contract";
import type { BillingSubject } from "./store";
import * as store from "./store";

/** Metadata that ties Stripe's objects to the workspace, so every webhook event can be mapped back. */
export const WORKSPACE_METADATA_KEY = "workspace_id";

export const stripeProvider: BillingProvider = {
  name: "stripe",

  async checkoutUrl(subject, choice) {
    const customer = await ensureCustomer(subject);
    const metadata = { [WORKSPACE_METADATA_KEY]: subject.id, plan: choice.plan, interval: choice.interval };
    const session = await callStripe((stripe) =>
      stripe.checkout.sessions.create({
        mode: "subscription",
        customer,
        client_reference_id: subject.id,
        line_items: [{ price: stripePriceId(choice), quantity: 1 }],
        currency: CURRENCY.toLowerCase(),
        metadata,
        subscription_data: { metadata },
        success_url: returnUrl("checkout=complete"),
        cancel_url: returnUrl("checkout=canceled"),
      }),
    );
    if (!session.url) throw new Error(`Stripe returned checkout session ${session.id} without a url.`);
    return session.url;
  },

  async portalUrl(subject) {
    const customer = await ensureCustomer(subject);
    const session = await callStripe((stripe) =>
      stripe.billingPortal.sessions.create({ customer, return_url: returnUrl("portal=closed") }),
    );
    return session.url;
  },
};

/**
 * The Stripe client. STRIPE_API_BASE points it elsewhere than api.stripe.com: for tests and
 * local stubs only.
 */
export function stripeClient(): Stripe {
  const { STRIPE_SECRET_KEY, STRIPE_API_BASE } = config();
  if (!STRIPE_SECRET_KEY) throw new Error("STRIPE_SECRET_KEY is not set.");
  return new Stripe(STRIPE_SECRET_KEY, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    ...(STRIPE_API_BASE && apiAddress(STRIPE_API_BASE)),
  });
}

/** A Stripe failure becomes a 502 the client may retry; the details go to the log, not the client. */
export async function callStripe<Result>(request: (stripe: Stripe) => Promise<Result>): Promise<Result> {
  try {
    return await request(stripeClient());
  } catch (error) {
    if (!(error instanceof Stripe.errors.StripeError)) throw error;
    // Stripe's messages name no secret (a key in one is masked to its last four characters).
    log().error(
      {
        stripeError: { type: error.type, statusCode: error.statusCode, code: error.code, requestId: error.requestId },
        detail: error.message,
      },
      "Stripe request failed",
    );
    throw new DomainError(
      "provider_failed",
      "The payment provider did not complete the request; nothing was charged. Please try again shortly.",
    );
  }
}

/** The workspace's Stripe customer, created on first need; the idempotency key keeps concurrent first calls to one customer. */
async function ensureCustomer(subject: BillingSubject): Promise<string> {
  const known = subject.account?.provider === "stripe" ? subject.account.customerId : null;
  if (known) return known;
  const customer = await callStripe((stripe) =>
    stripe.customers.create(
      { name: subject.name, metadata: { [WORKSPACE_METADATA_KEY]: subject.id } },
      { idempotencyKey: `permalink-customer-${subject.id}` },
    ),
  );
  await store.saveCustomer(subject.id, "stripe", customer.id);
  return customer.id;
}

function returnUrl(query: string): string {
  return `${config().BASE_URL}/billing/return?${query}`;
}

function apiAddress(base: string): { host: string; port: number; protocol: "http" | "https" } {
  const url = new URL(base);
  const protocol = url.protocol === "http:" ? "http" : "https";
  return { host: url.hostname, port: Number(url.port || (protocol === "http" ? 80 : 443)), protocol };
}
