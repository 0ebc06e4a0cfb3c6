import type { PaymentSettings } from "@/lib/config/payments";
import { DomainError } from "@/lib/http/errors";
import { paymentRequiredResponse } from "@/lib/http/payment-required";
import { json } from "@/lib/http/respond";
import { toLinkView } from "@/lib/links/present";
import type { PaidLink } from "@/lib/links/schemas";
import type { LinkRow } from "@/lib/links/store";
import { Receipt } from "mppx";
import { charge } from "./gateway";
import { paymentSettings } from "./settings";
import type { Purchase } from "./types";

/** The headers a paid answer carries: Payment-Receipt (MPP), and PAYMENT-RESPONSE when x402 paid. */
const RECEIPT_HEADERS = ["payment-receipt", "payment-response"];

export const ASK_AGAIN = "Send this request without credentials for a fresh challenge.";

/** A 402 with mppx's challenge headers (both protocols) and the PaymentRequired body. */
export function paymentRequired(challenge: Response, message: string, settings: PaymentSettings): Response {
  const headers: Record<string, string> = {};
  for (const name of ["www-authenticate", "payment-required"]) {
    const value = challenge.headers.get(name);
    if (value) headers[name] = value;
  }
  return paymentRequiredResponse(
    { reason: message, price: settings.price, currency: settings.assetName, pay: ["mpp", "x402"], docs: settings.docsUrl },
    headers,
  );
}

export function priceSentence(settings: PaymentSettings): string {
  return (
    `Payment required: ${settings.price} ${settings.assetName} buys one permanent link, no account ` +
    `needed. Answer the challenge with MPP (WWW-Authenticate: Payment) or x402 (PAYMENT-REQUIRED) ` +
    `and send the same request again; how: ${settings.docsUrl}.`
  );
}

/** Why mppx refused, from the problem detail of its challenge response. */
export async function refusalReason(challenge: Response): Promise<string> {
  const problem = (await challenge
    .clone()
    .json()
    .catch(() => null)) as { detail?: unknown } | null;
  return typeof problem?.detail === "string" ? problem.detail : "The payment could not be verified.";
}

/** The receipt headers of a settled payment, and the reference (transaction hash) they carry. */
export function receiptOf(withReceipt: Response): { reference: string; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  for (const name of RECEIPT_HEADERS) {
    const value = withReceipt.headers.get(name);
    if (value) headers[name] = value;
  }
  const receipt = headers["payment-receipt"];
  if (!receipt) throw new Error("A settled payment came back without a Payment-Receipt header.");
  return { reference: Receipt.deserialize(receipt).reference, headers };
}

export function toPaidLink(link: LinkRow, receipt: string, notice: string | null): PaidLink {
  return { ...toLinkView(link), receipt, ...(notice && { notice }) };
}

export function paidLinkResponse(body: PaidLink, apiKey: string | null, receiptHeaders: Record<string, string>): Response {
  return json({ ...body, ...(apiKey && { api_key: apiKey }) }, 201, receiptHeaders);
}

export function stillSettling(): DomainError {
  return new DomainError(
    "conflict",
    "This payment is still being settled by an earlier request with the same credential; send it again in a few seconds.",
    {
      "Retry-After": "2",
    },
  );
}

/** A fresh challenge for this purchase, carrying `message`. */
export async function challenge(purchase: Purchase, message: string): Promise<Response> {
  const outcome = await charge(purchase);
  if (outcome.status !== 402) throw new Error("A request without credentials was not answered with a challenge.");
  return paymentRequired(outcome.challenge, message, paymentSettings());
}
