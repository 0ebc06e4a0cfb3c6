export type RateLimitResult = {
  success: boolean;
  limit: number;
  remaining: number;
  /** Epoch ms at which the budget next grows. */
  resetAt: number;
};

export interface WriteLimiter {
  limit(principal: string): Promise<RateLimitResult>;
}

export const WRITE_POLICY_NAME = "writes";
export const WRITE_WINDOW_SECONDS = 60;
export const WRITE_WINDOW_MS = WRITE_WINDOW_SECONDS * 1_000;
