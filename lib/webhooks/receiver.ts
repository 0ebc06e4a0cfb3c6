import type { LookupFunction } from "node:net";
import { Resolver } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import { config } from "@/lib/config";
import { DomainError } from "@/lib/http/errors";
import { isIpLiteral } from "@/lib/safety/addresses";
import { checkDestination, isInternalAddress, normaliseDestination } from "@/lib/safety/destination";

/** What WEBHOOK_PRIVATE_NETWORKS may open: the operator's own networks, never a metadata endpoint. */
const PRIVATE_RANGES: ReadonlySet<string> = new Set(["loopback", "private", "uniqueLocal", "carrierGradeNat"]);
const LOOKUP_TIMEOUT_MS = 3000;

export const INTERNAL_RECEIVER = "The webhook URL points to an internal or private address, which webhooks may not be sent to.";

/**
 * Whether a message may be sent to this address: public, or a loopback or private address inside
 * one of the networks the operator named in WEBHOOK_PRIVATE_NETWORKS (none by default).
 */
export function receiverAddressAllowed(address: string): boolean {
  const addressClass = isInternalAddress(address);
  if (!addressClass.internal) return true;
  return PRIVATE_RANGES.has(addressClass.range) && inOperatorNetwork(address);
}

function inOperatorNetwork(address: string): boolean {
  const parsed = ipaddr.process(address.replace(/^\[|\]$/g, ""));
  return config().WEBHOOK_PRIVATE_NETWORKS.some((network) => {
    const range = ipaddr.parseCIDR(network);
    return parsed.kind() === range[0].kind() && parsed.match(range);
  });
}

/**
 * The receiver URL as stored, through the destination rules of links (scheme, user info,
 * control characters, internal addresses and names in every encoding), then every address its
 * name has now. Refused with 422. The address actually connected to is checked again at each
 * attempt (receiverLookup), since a name may point elsewhere later.
 */
export async function vetReceiverUrl(raw: string): Promise<string> {
  const decision = checkDestination(raw);
  if (!decision.ok && !allowedInternal(raw, decision.reason))
    throw new DomainError("refused", receiverSentence(decision.message));
  const url = decision.ok ? decision.url : normaliseDestination(raw);
  const hostname = bareHost(url);
  const addresses = isIpLiteral(hostname) ? [hostname] : await resolveAddresses(hostname);
  if (addresses.some((address) => !receiverAddressAllowed(address))) throw new DomainError("refused", INTERNAL_RECEIVER);
  return url;
}

/** With networks in WEBHOOK_PRIVATE_NETWORKS, an internal name or a literal in them passes the destination rules' refusal. */
function allowedInternal(raw: string, reason: string): boolean {
  if (config().WEBHOOK_PRIVATE_NETWORKS.length === 0) return false;
  if (reason === "internal_name") return true;
  if (reason !== "internal_address") return false;
  return receiverAddressAllowed(bareHost(normaliseDestination(raw)));
}

/** The URL's host without IPv6 brackets. */
export function bareHost(url: string): string {
  return new URL(url).hostname.replace(/^\[|\]$/g, "");
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
export const receiverLookup: LookupFunction = (hostname, options, callback) => {
  resolveAddresses(hostname).then(
    (addresses) => {
      if (addresses.length === 0) return callback(lookupError("ENOTFOUND", `${hostname} has no A or AAAA records.`), "", 4);
      if (addresses.some((address) => !receiverAddressAllowed(address)))
        return callback(lookupError("EREFUSED_INTERNAL", INTERNAL_RECEIVER), "", 4);
      const entries = addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
      if (options.all) return (callback as (error: null, entries: { address: string; family: number }[]) => void)(null, entries);
      callback(null, entries[0]!.address, entries[0]!.family);
    },
    (error: Error) => callback(lookupError("ENOTFOUND", `The DNS lookup for ${hostname} failed: ${error.message}`), "", 4),
  );
};

function lookupError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

async function resolveAddresses(hostname: string): Promise<string[]> {
  const resolver = new Resolver({ timeout: LOOKUP_TIMEOUT_MS, tries: 1 });
  const server = config().DNS_RESOLVER;
  if (server) resolver.setServers([server]);
  const family = (resolve: () => Promise<string[]>) => resolve().catch(() => [] as string[]);
  const [v4, v6] = await Promise.all([family(() => resolver.resolve4(hostname)), family(() => resolver.resolve6(hostname))]);
  return [...v4, ...v6];
}
