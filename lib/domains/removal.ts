import { transaction } from "@/lib/db/client";
import { isForeignKeyViolation } from "@/lib/db/errors";
import { DomainError } from "@/lib/http/errors";
import { publishInvalidation } from "@/lib/links/invalidation";
import { domainNotFound } from "./not-found";
import { deleteDomain, type DomainRow } from "./store";
import { tlsProvider } from "./tls";

/** Long enough for the TLS provider's answer (the row's delete waits for it, so both happen or neither). */
const REMOVAL_TRANSACTION = { maxWait: 10_000, timeout: 20_000 };

/**
 * Deletes a domain that has no links. The links' foreign key (ON DELETE RESTRICT) decides, so a
 * link created at the same moment either makes the delete fail or fails itself: no link is ever
 * left on a domain that no longer exists. A verified domain is also removed from the TLS
 * provider inside the same transaction: if the provider fails, the domain stays.
 */
export async function removeDomainRow(domain: DomainRow): Promise<void> {
  await transaction(async (tx) => {
    // A removal at the same moment may have deleted the row already, which is "not found", not a failure.
    const count = await deleteDomain(tx, domain.id).catch((error: unknown) => {
      throw isForeignKeyViolation(error) ? hasLinks(domain.hostname) : error;
    });
    if (count === 0) throw domainNotFound();
    if (domain.verifiedAt) await tlsProvider().detach(domain.hostname);
  }, REMOVAL_TRANSACTION);
  if (domain.verifiedAt) publishInvalidation({ kind: "domain", hostname: domain.hostname });
}

function hasLinks(hostname: string): DomainError {
  return new DomainError(
    "conflict",
    `${hostname} has links, which must keep resolving, so it cannot be deleted; links are permanent, and so is a domain that carries them.`,
  );
}
