/**
 * What went wrong, in the domain's words. Capabilities throw a DomainError with one of these;
 * the route wrapper (lib/api/route.ts) decides the HTTP status for each, in one table.
 */
export type ErrorCode =
  | "invalid_request" // the input cannot be used as sent
  | "unauthenticated" // no caller we know
  | "payment_required" // a payment or a subscription is needed first
  | "forbidden" // a caller we know, not allowed this
  | "not_found"
  | "conflict" // the current state does not allow it (taken, already live, still settling)
  | "gone" // it existed and has expired
  | "too_large"
  | "unsupported_media_type" // a body of a type the operation does not take
  | "refused" // well-formed, and refused on its merits (an unsafe destination)
  | "rate_limited"
  | "provider_failed" // a provider we depend on did not complete the request
  | "not_configured"; // this deployment has the feature switched off

/**
 * A failure that reaches the caller as `{ error, ...details }`: `message` is a sentence for a
 * human, `details` are fields some failures add (a 402's price and ways to pay), `headers` go
 * with the answer (a challenge, rate-limit state).
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const UNAUTHENTICATED_MESSAGE = "Send a valid API key or session token in the Authorization header (Bearer).";

export const NOT_A_MEMBER_MESSAGE = "The workspace named in X-Workspace-Id does not exist or you are not a member of it.";

/**
 * Where the protected resource metadata lives (RFC 9728), relative to BASE_URL: the route wrapper
 * adds it to every Bearer challenge it answers, so an OAuth client can start from any 401.
 */
export const RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource/api/mcp";

/**
 * The Bearer challenge (RFC 6750 §3): the realm, and `error` when a token was sent and is not (or
 * no longer) valid or lacks a scope.
 */
export function bearerChallenge(error?: "invalid_token" | "insufficient_scope", scope?: string): Record<string, string> {
  const parts = ['realm="api"'];
  if (error) parts.push(`error="${error}"`);
  if (scope) parts.push(`scope="${scope}"`);
  return { "WWW-Authenticate": `Bearer ${parts.join(", ")}` };
}

export function unauthenticated(message = UNAUTHENTICATED_MESSAGE, error?: "invalid_token"): DomainError {
  return new DomainError("unauthenticated", message, bearerChallenge(error));
}

export function notAMember(): DomainError {
  return new DomainError("unauthenticated", NOT_A_MEMBER_MESSAGE, bearerChallenge());
}

export function forbidden(message: string): DomainError {
  return new DomainError("forbidden", message);
}

export function notFound(message: string): DomainError {
  return new DomainError("not_found", message);
}
