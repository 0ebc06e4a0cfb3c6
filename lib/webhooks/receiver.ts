import { DomainError } from "@/lib/http/errors";
import { outboundAddressAllowed, outboundLookup, vetOutboundUrl } from "@/lib/safety/outbound";

export { bareHost } from "@/lib/safety/outbound";

export const INTERNAL_RECEIVER = "The webhook URL points to an internal or private address, which webhooks may not be sent to.";

/**
 * Whether a message may be sent to this address: public, or a loopback or private address inside
 * one of the networks the operator named in WEBHOOK_PRIVATE_NETWORKS (none by default). The rules
 * are every outbound request's (lib/safety/outbound.ts).
 */
export const receiverAddressAllowed = outboundAddressAllowed;

/**
 * The receiver URL as stored, through the destination rules of links (scheme, user info,
 * control characters, internal addresses and names in every encoding), then every address its
 * name has now. Refused with 422. The address actually connected to is checked again at each
 * attempt (receiverLookup), since a name may point elsewhere later.
 */
export async function vetReceiverUrl(raw: string): Promise<string> {
  const verdict = await vetOutboundUrl(raw);
  if (verdict.ok) return verdict.url;
  throw new DomainError("refused", verdict.reason === "internal" ? INTERNAL_RECEIVER : receiverSentence(verdict.message));
}

function receiverSentence(destinationMessage: string): string {
  return destinationMessage
    .replace(/^The destination/, "The webhook URL")
    .replace(/short links may not redirect to/, "webhooks may not be sent to");
}

/**
 * The http agent's lookup for a delivery: resolves the name itself (DNS_RESOLVER when set) and
 * refuses the connection when any address is not allowed, so a name that pointed at a public
 * address when the webhook was saved and now points inside (DNS rebinding) is never connected to.
 */
export const receiverLookup = outboundLookup(INTERNAL_RECEIVER);
