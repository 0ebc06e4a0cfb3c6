/**
 * The waits before each retry: the first within a minute, then longer and longer, about a day in
 * all (23 h 42 min over 9 retries). A message whose last retry fails disables its endpoint.
 */
export const RETRY_DELAYS_MS: readonly number[] = [30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 28_800].map((s) => s * 1000);
/** Every attempt of a message, the first included. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
