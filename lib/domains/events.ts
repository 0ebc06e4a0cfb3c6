import type { DbClient } from "@/lib/db/client";
import { announceEvent } from "@/lib/webhooks/outbox";
import { toDomainView } from "./present";
import type { DomainRow } from "./store";

/** Verified for good: a status only a verified domain has. */
const VERIFIED_STATUSES: readonly string[] = ["active", "misconfigured"];

/**
 * The webhook messages of a recorded check, in its transaction: domain.verified when the domain
 * is verified for the first time, domain.failed when a verified domain's records stop pointing
 * here (once per failure: until a check finds them right again).
 */
export async function recordDomainEvents(client: DbClient, previousStatus: string, domain: DomainRow): Promise<void> {
  if (!VERIFIED_STATUSES.includes(previousStatus) && VERIFIED_STATUSES.includes(domain.hostnameStatus))
    await announceEvent(client, domain.workspaceId, "domain.verified", toDomainView(domain));
  if (previousStatus !== "misconfigured" && domain.hostnameStatus === "misconfigured")
    await announceEvent(client, domain.workspaceId, "domain.failed", toDomainView(domain));
}
