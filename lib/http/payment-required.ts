import { z } from "zod";
import { DomainError } from "./errors";
import { json } from "./respond";

/**
 * What a 402 carries. `pay` names the way forward: "mpp" and "x402" for a machine payment
 * challenge; "subscribe" when the account's subscription is inactive; "upgrade" when its
 * plan's link allowance for this cycle is spent.
 */
export const paymentRequiredSchema = z
  .object({
    error: z.string().meta({ description: "what to do; always says that existing links keep resolving" }),
    price: z.string().meta({ example: "0.50" }),
    currency: z.string().meta({ example: "USDC" }),
    pay: z.array(z.enum(["mpp", "x402", "subscribe", "upgrade"])),
    docs: z.url(),
  })
  .meta({ id: "PaymentRequired" });

export type PaymentRequired = z.infer<typeof paymentRequiredSchema>;

export const KEEP_RESOLVING = "Existing links keep resolving.";

/** A 402's content: `reason` says what to do; the sentence that existing links keep resolving is added here, for every 402. */
export type PaymentOffer = Omit<PaymentRequired, "error"> & { reason: string };

function withKeepResolving({ reason, ...offer }: PaymentOffer): PaymentRequired {
  return { error: `${reason} ${KEEP_RESOLVING}`, ...offer };
}

export function paymentRequiredResponse(offer: PaymentOffer, headers: Record<string, string> = {}): Response {
  return json(withKeepResolving(offer), 402, { ...headers, "Cache-Control": "no-store" });
}

/** Thrown from deep in a capability (an inactive subscription, a spent allowance) to answer 402. */
export function paymentRequiredError(offer: PaymentOffer): DomainError {
  const { error, ...details } = withKeepResolving(offer);
  return new DomainError("payment_required", error, { "Cache-Control": "no-store" }, details);
}

/** 503 from a deployment that has no recipient or MPP secret, wherever a machine payment is offered. */
export function machinePaymentsOff(): DomainError {
  return new DomainError(
    "not_configured",
    `This deployment does not take machine payments (MPP_SECRET_KEY and PAYMENT_RECIPIENT are not ` +
      `set); use an API key instead. ${KEEP_RESOLVING}`,
  );
}
