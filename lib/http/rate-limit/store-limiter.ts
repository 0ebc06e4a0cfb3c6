import { SafeToLogError, type SharedStoreKind, sharedStoreAnswered, sharedStoreFailed } from "@/lib/shared-store/status";
import { Ratelimit } from "@upstash/ratelimit";
import type { UpstashScriptingClient } from "./ioredis-adapter";
import { type RateLimitResult, WRITE_WINDOW_SECONDS, type WriteLimiter } from "./policy";

// Ratelimit answers { success: true, reason: "timeout" } past this; we treat that as a store failure.
const STORE_TIMEOUT_MS = 1_000;

type RatelimitRedis = ConstructorParameters<typeof Ratelimit>[0]["redis"];
type RatelimitResponse = Awaited<ReturnType<Ratelimit["limit"]>>;

export type StoreLimiterOptions = {
  kind: SharedStoreKind;
  redis: UpstashScriptingClient;
  perMinute: number;
  prefix: string;
  fallback: WriteLimiter;
};

class StoreTimeoutError extends SafeToLogError {
  override name = "StoreTimeoutError";
}

/** Sliding-window limiter kept in Redis; any store failure answers from `fallback` for that call, and is reported. */
export function createStoreLimiter(options: StoreLimiterOptions): WriteLimiter {
  const ratelimit = new Ratelimit({
    // The config type also asks for get/set, which only Ratelimit's dynamic-limit API (unused here) calls.
    redis: options.redis as unknown as RatelimitRedis,
    limiter: Ratelimit.slidingWindow(options.perMinute, `${WRITE_WINDOW_SECONDS} s`),
    prefix: options.prefix,
    timeout: STORE_TIMEOUT_MS,
    // Its blocked-identifier Map drops an entry only when that identifier is seen again, so it grows unbounded.
    ephemeralCache: false,
  });

  // A cost that does not fit is refused, and counts (Upstash's sliding window adds it before it
  // compares): the principal's count goes at most cost − 1 past the limit, and it is refused a little longer.
  async function limitInStore(principal: string, cost: number): Promise<RateLimitResult> {
    const response = await ratelimit.limit(principal, { rate: cost });
    if (response.reason === "timeout") throw new StoreTimeoutError(`no answer within ${STORE_TIMEOUT_MS} ms`);
    sharedStoreAnswered(options.kind);
    return toRateLimitResult(response);
  }

  async function limitPrincipal(principal: string, cost = 1): Promise<RateLimitResult> {
    const weight = Math.max(1, Math.min(Math.ceil(cost), options.perMinute));
    try {
      return await limitInStore(principal, weight);
    } catch (error) {
      sharedStoreFailed(options.kind, error);
      return options.fallback.limit(principal, weight);
    }
  }

  return { limit: limitPrincipal };
}

function toRateLimitResult(response: RatelimitResponse): RateLimitResult {
  return { success: response.success, limit: response.limit, remaining: response.remaining, resetAt: response.reset };
}
