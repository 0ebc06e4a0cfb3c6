import { DomainError } from "@/lib/http/errors";
import { checkDestination, type RefusalReason } from "@/lib/safety/destination";
import { safetyChecker, safetyRulesChecker } from "@/lib/safety/instance";

/** Malformed input is a validation failure (400); a well-formed but unsafe destination is 422. */
const VALIDATION_REASONS: ReadonlySet<RefusalReason> = new Set(["invalid_url", "scheme", "control_chars", "port", "too_long"]);

/**
 * Applies the destination rules and the safety checker chain; returns the normalised
 * destination to store. A checker that cannot decide (unknown) does not refuse: the link is
 * quarantined and checked again when it resolves. `lookups: false` applies the rules only (no DNS,
 * no Web Risk): what a dry run checks.
 */
export async function vetDestination(raw: string, { lookups = true } = {}): Promise<string> {
  const decision = checkDestination(raw);
  if (!decision.ok) {
    throw new DomainError(VALIDATION_REASONS.has(decision.reason) ? "invalid_request" : "refused", decision.message);
  }
  const verdict = await (lookups ? safetyChecker() : safetyRulesChecker()).check(decision.url);
  if (verdict.status === "malicious") {
    throw new DomainError("refused", `The destination failed a safety check: ${verdict.detail}`);
  }
  return decision.url;
}
