import { Ratelimit } from "@upstash/ratelimit";
import type { UpstashScriptingClient } from "./ioredis-adapter";
import { type RateLimitResult, WRITE_WINDOW_MS, WRITE_WINDOW_SECONDS, type WriteLimiter } from "./policy";
import { log } from "@/lib/log";

// Ratelimit answers { success: true, reason: "timeout" } past this; we treat that as a store failure.
const STORE_TIMEOUT_MS = 1_000;

type RatelimitRedis = ConstructorParameters<typeof Ratelimit>[0]["redis"];
type RatelimitResponse = Awaited<ReturnType<Ratelimit["limit"]>>;

export type StoreLimiterOptions = {
  redis: UpstashScriptingClient;
  perMinute: number;
  prefix: string;
  fallback: WriteLimiter;
};

class StoreTimeoutError extends Error {
  override name = "StoreTimeoutError";
}

/** Sliding-window limiter kept in Redis; any store failure answers from `fallback` for that call. */
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
  const warnStoreUnavailable = createThrottledStoreWarning(WRITE_WINDOW_MS);

  async function limitInStore(principal: string): Promise<RateLimitResult> {
    const response = await ratelimit.limit(principal);
    if (response.reason === "timeout") throw new StoreTimeoutError(`no answer within ${STORE_TIMEOUT_MS} ms`);
    return toRateLimitResult(response);
  }

  async function limitPrincipal(principal: string): Promise<RateLimitResult> {
    try {
      return await limitInStore(principal);
    } catch (error) {
      warnStoreUnavailable(error);
      return options.fallback.limit(principal);
    }
  }

  return { limit: limitPrincipal };
}

function toRateLimitResult(response: RatelimitResponse): RateLimitResult {
  return { success: response.success, limit: response.limit, remaining: response.remaining, resetAt: response.reset };
}

function createThrottledStoreWarning(intervalMs: number): (error: unknown) => void {
  let lastWarnedAt = Number.NEGATIVE_INFINITY;
  return (error) => {
    const now = Date.now();
    if (now - lastWarnedAt < intervalMs) return;
    lastWarnedAt = now;
    log().warn({ cause: describeWithoutSecrets(error) }, "rate-limit store unavailable; limiting writes in memory");
  };
}

/** Error name and code only: messages can embed connection URLs. */
function describeWithoutSecrets(error: unknown): string {
  if (!(error instanceof Error)) return typeof error;
  const code = errorCode(error) ?? errorCode(error.cause);
  return code === undefined ? error.name : `${error.name} ${code}`;
}

function errorCode(error: unknown): string | undefined {
  const code: unknown = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}
