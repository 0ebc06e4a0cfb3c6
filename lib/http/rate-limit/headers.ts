import { type RateLimitResult, WRITE_POLICY_NAME, WRITE_WINDOW_SECONDS } from "./policy";

/** IETF draft-ietf-httpapi-ratelimit-headers-09 fields, plus Retry-After on refusal. */
export function rateLimitHeaders(result: RateLimitResult, now: number): Record<string, string> {
  const secondsUntilReset = secondsUntil(result.resetAt, now, result.success ? 0 : 1);
  const headers: Record<string, string> = {
    "RateLimit-Policy": `"${WRITE_POLICY_NAME}";q=${result.limit};w=${WRITE_WINDOW_SECONDS}`,
    RateLimit: `"${WRITE_POLICY_NAME}";r=${result.remaining};t=${secondsUntilReset}`,
  };
  if (!result.success) headers["Retry-After"] = String(secondsUntilReset);
  return headers;
}

function secondsUntil(epochMs: number, now: number, minimum: number): number {
  return Math.max(minimum, Math.ceil((epochMs - now) / 1_000));
}
