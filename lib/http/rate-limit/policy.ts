export type RateLimitResult = {
  success: boolean;
  limit: number;
  remaining: number;
  /** Epoch ms at which the budget next grows. */
  resetAt: number;
};

export interface WriteLimiter {
  /**
   * Spends `cost` (1 unless said; at most the whole budget) of the principal's budget: a request
   * that costs the service more work counts as several. Refused when it does not fit what is left.
   */
  limit(principal: string, cost?: number): Promise<RateLimitResult>;
}

export const WRITE_POLICY_NAME = "writes";
export const WRITE_WINDOW_SECONDS = 60;
export const WRITE_WINDOW_MS = WRITE_WINDOW_SECONDS * 1_000;
