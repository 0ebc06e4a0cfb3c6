import { type DomainError, notFound } from "@/lib/http/errors";

/** The one sentence for a domain id this workspace does not have (or that was removed meanwhile). */
export const DOMAIN_NOT_FOUND = "No domain with this id exists in this workspace.";

export function domainNotFound(): DomainError {
  return notFound(DOMAIN_NOT_FOUND);
}
