import { config, type Config } from "@/lib/config";
import { configuredPaymentSettings, type PaymentSettings } from "@/lib/config/payments";
import { processSingleton } from "@/lib/process-singleton";
import { generate } from "mppx/discovery";
import { Mppx, evm } from "mppx/server";
import { createHash } from "node:crypto";
import { paymentSettings } from "./settings";
import type { Purchase } from "./types";

/** How long a challenge (MPP `expires`) and an x402 authorization (maxTimeoutSeconds) stay payable. */
export const CHALLENGE_LIFETIME_SECONDS = 300;

/**
 * The longest one facilitator call (verify, settle) may take; a timed-out charge is refused like
 * any facilitator error. Bounded so that a live attempt never looks abandoned to a resend.
 */
export const FACILITATOR_TIMEOUT_MS = 30_000;

const PAYMENT_DESCRIPTION = "One permanent short link";

type Gateway = ReturnType<typeof createGateway>;
export type ChargeOutcome = Awaited<ReturnType<ReturnType<Gateway["charge"]>>>;

const built = processSingleton<{ source: Config; settings: PaymentSettings; gateway: Gateway } | undefined>(
  "paymentGateway",
  () => undefined,
);

/**
 * mppx with its `evm` charge method: one 402 carries both challenges (WWW-Authenticate: Payment
 * and PAYMENT-REQUIRED), either retry is accepted, the EIP-3009 signature is checked locally and
 * the payment settles through the x402 facilitator before our code runs. Rebuilt when the
 * configuration changes.
 */
function currentGateway(): { settings: PaymentSettings; gateway: Gateway } {
  const source = config();
  const current = built.peek();
  if (current?.source === source) return current;
  const settings = paymentSettings();
  const fresh = { source, settings, gateway: createGateway(settings) };
  built.set(fresh);
  return fresh;
}

function createGateway(settings: PaymentSettings) {
  return Mppx.create({
    methods: [
      evm({
        currency: settings.asset,
        recipient: settings.recipient,
        chainId: settings.chainId,
        decimals: settings.decimals,
        authorization: { name: settings.assetName, version: settings.assetVersion },
        x402: { facilitator: settings.facilitatorUrl, fetch: fetchWithTimeout, maxTimeoutSeconds: CHALLENGE_LIFETIME_SECONDS },
      }),
    ],
    secretKey: settings.secretKey,
    realm: settings.realm,
  });
}

function fetchWithTimeout(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  return fetch(input, { ...init, signal: AbortSignal.timeout(FACILITATOR_TIMEOUT_MS) });
}

/**
 * Runs mppx for this purchase on a request carrying only the payment headers (or none, for a
 * fresh challenge). The purchase is bound into `opaque`, which the challenge id's HMAC covers:
 * a credential made for another destination or slug no longer matches.
 */
export async function charge(purchase: Purchase, paymentHeaders: Headers = new Headers()): Promise<ChargeOutcome> {
  const { settings, gateway } = currentGateway();
  const request = new Request(settings.resourceUrl, { method: "POST", headers: paymentHeaders });
  const expires = new Date(Date.now() + CHALLENGE_LIFETIME_SECONDS * 1000).toISOString();
  return gateway.charge({ amount: settings.price, description: PAYMENT_DESCRIPTION, meta: purchaseBinding(purchase), expires })(
    request,
  );
}

/**
 * The payment metadata of POST /api/links as mppx's discovery helper writes it (`x-payment-info`:
 * the offers, each with amount, currency, intent, method and recipient), from the same gateway
 * that issues the challenges; null when this deployment takes no machine payments.
 */
export function paymentDiscovery(path: string): Record<string, unknown> | null {
  if (!configuredPaymentSettings()) return null;
  const { settings, gateway } = currentGateway();
  const handler = gateway.charge({ amount: settings.price, description: PAYMENT_DESCRIPTION });
  const document = generate(gateway, { routes: [{ handler, method: "post", path }] }) as {
    paths: Record<string, { post: { "x-payment-info": Record<string, unknown> } }>;
  };
  return document.paths[path]!.post["x-payment-info"];
}

/** What `opaque` carries: a hash of the destination (a URL can be long and is nobody else's business) and the slug. */
export function purchaseBinding(purchase: Purchase): Record<string, string> {
  return { destination_sha256: sha256(purchase.destination), slug: purchase.slug ?? "" };
}

export function sha256(value: string): string {
  return createHash("sha256").update(value).digest("base64url");
}
