import { publishInvalidation } from "@/lib/links/invalidation";
import { blockDomainDestination, type DomainDestinationKind } from "./store";

/**
 * Stops serving a verified domain's root_destination or not_found_destination that a safety check
 * found harmful (the background re-check), while the domain still holds that destination: its
 * visits get the warning page instead, as a blocked link's do, and every instance drops the host's
 * cached answer. Existing codes on the domain are untouched: they are looked up first, as always.
 * True when this call blocked it.
 */
export async function stopServingDestination(
  domainId: string,
  kind: DomainDestinationKind,
  checkedDestination: string,
  reason: string,
  now: Date,
): Promise<boolean> {
  const hostname = await blockDomainDestination(domainId, kind, checkedDestination, reason, now);
  if (hostname === null) return false;
  publishInvalidation({ kind: "domain", hostname });
  return true;
}
