import type { PaymentSettings } from "@/lib/config/payments";
import { formatUnits, isAddress, isAddressEqual } from "viem";
import { purchaseBinding } from "./gateway";
import { ASK_AGAIN } from "./responses";
import type { PaymentCredential, Purchase } from "./types";

/**
 * Why this credential cannot pay for this purchase at today's terms, as a sentence; null when it
 * matches. mppx refuses the same credentials (the challenge's HMAC covers price, asset, recipient,
 * network and the purchase); this says which term differs, before anything settles.
 */
export function bindingMismatch(credential: PaymentCredential, purchase: Purchase, settings: PaymentSettings): string | null {
  const mismatch = termsMismatch(credential, settings) ?? purchaseMismatch(credential, purchase);
  return mismatch && `${mismatch} Nothing was charged. ${ASK_AGAIN}`;
}

function termsMismatch({ terms }: PaymentCredential, settings: PaymentSettings): string | null {
  if (terms.network !== settings.network) {
    return `This payment was made for the network ${terms.network}; this service is paid on ${settings.network}.`;
  }
  if (!sameAddress(terms.asset, settings.asset)) {
    return `This payment is in the token ${terms.asset}; this service is paid in ${settings.assetName} (${settings.asset}).`;
  }
  if (!sameAddress(terms.recipient, settings.recipient)) {
    return `This payment goes to ${terms.recipient}, which is not this service's recipient (${settings.recipient}).`;
  }
  if (terms.amount !== settings.amount) {
    return (
      `This payment was made for a price of ${displayAmount(terms.amount, settings)} ` +
      `${settings.assetName}; one link costs ${settings.price} ${settings.assetName}.`
    );
  }
  return null;
}

function purchaseMismatch({ binding }: PaymentCredential, purchase: Purchase): string | null {
  if (!binding) return null;
  const expected = purchaseBinding(purchase);
  if (binding.destination_sha256 !== expected.destination_sha256) {
    return "This payment was made for another destination than the one in this request.";
  }
  if (binding.slug !== expected.slug) {
    return `This payment was made for ${describeSlug(binding.slug)}, and this request asks for ${describeSlug(expected.slug)}.`;
  }
  return null;
}

function describeSlug(slug: string | undefined): string {
  return slug ? `the slug "${slug}"` : "an allocated slug";
}

function displayAmount(amount: string, settings: PaymentSettings): string {
  return /^\d+$/.test(amount) ? formatUnits(BigInt(amount), settings.decimals) : JSON.stringify(amount);
}

function sameAddress(candidate: string, expected: string): boolean {
  return isAddress(candidate) && isAddressEqual(candidate, expected as `0x${string}`);
}
