import type { Address } from "@/lib/config/payments";

/** What a payment buys: one link to this normalised destination, on this slug or an allocated one. */
export type Purchase = { destination: string; slug: string | null };

export type Protocol = "mpp" | "x402";

/** The terms a credential was signed for, as it states them (checked against ours before settling). */
export type PaymentTerms = { network: string; asset: string; recipient: string; amount: string };

/** A payment credential read from the request, before anything about it is verified. */
export type PaymentCredential = {
  protocol: Protocol;
  /** The headers mppx reads, normalised: an x402 payload sent as `Authorization: Payment` moves to PAYMENT-SIGNATURE. */
  headers: Headers;
  /** sha256 of the header value as sent: an identical resend is recognised before any parsing. */
  credentialHash: string;
  /** `<network>:<payer>:<nonce>`: what the token contract makes single-use. */
  paymentKey: string;
  payer: Address;
  terms: PaymentTerms;
  /** The purchase binding echoed from the challenge's `opaque`; absent from x402 clients that do not echo extensions. */
  binding: Record<string, string> | null;
};

export type CredentialReading =
  { kind: "none" } | { kind: "malformed"; reason: string } | { kind: "present"; credential: PaymentCredential };
