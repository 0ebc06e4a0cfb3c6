import { DomainError } from "@/lib/http/errors";
import { checkDestination, type RefusalReason } from "@/lib/safety/destination";
import { safetyChecker } from "@/lib/safety/instance";

/** Malformed input is a validation failure (400); a well-formed but unsafe destination is 422. */
const VALIDATION_REASONS: ReadonlySet<RefusalReason> = new Set(["invalid_url", "scheme", "control_chars", "port", "too_long"]);

/**
 * Applies the destination rules and the safety checker chain; returns the normalised
 * destination to store. A checker that cannot decide (unknown) does not refuse: the link is
 * quarantined and checked again when it resolves.
 */
export async function vetDestination(raw: string): Promise<string> {
  const decision = checkDestination(raw);
  if (!decision.ok) {
    throw new DomainError(VALIDATION_REASONS.has(decision.reason) ? "invalid_request" : "refused", decision.message);
  }
  const verdict = await safetyChecker().check(decision.url);
  if (verdict.status === "malicious") {
    throw new DomainError("refused", `The destination failed a safety check: ${verdict.detail}`);
  }
  return decision.url;
}
