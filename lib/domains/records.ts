import { config } from "@/lib/config";

/**
 * One DNS record the customer creates; name is the full name (DNS panels that append the zone want the
 * part before it, "@" for the apex).
 */
export type DnsRecord = { type: "TXT" | "CNAME" | "A" | "AAAA"; name: string; value: string };

/** Where routing records point: the short host (CNAME target) and, for an apex, its addresses. */
export type RoutingTarget = { shortHost: string; ipv4: readonly string[]; ipv6: readonly string[] };

const OWNERSHIP_PREFIX = "_permalink";
const OWNERSHIP_VALUE_PREFIX = "permalink-verify=";

export function routingTarget(): RoutingTarget {
  const settings = config();
  return {
    shortHost: new URL(settings.SHORT_BASE_URL).hostname,
    ipv4: settings.SHORT_HOST_IPV4 ?? [],
    ipv6: settings.SHORT_HOST_IPV6 ?? [],
  };
}

export function ownershipRecord(hostname: string, token: string): DnsRecord & { type: "TXT" } {
  return { type: "TXT", name: `${OWNERSHIP_PREFIX}.${hostname}`, value: `${OWNERSHIP_VALUE_PREFIX}${token}` };
}

/** A CNAME to the short host; an apex cannot hold a CNAME, so it gets A (and AAAA) records to the short host's addresses. */
export function routingRecords(hostname: string, apex: boolean, target: RoutingTarget): DnsRecord[] {
  if (!apex) return [{ type: "CNAME", name: hostname, value: target.shortHost }];
  return [
    ...target.ipv4.map((address) => ({ type: "A" as const, name: hostname, value: address })),
    ...target.ipv6.map((address) => ({ type: "AAAA" as const, name: hostname, value: address })),
  ];
}
