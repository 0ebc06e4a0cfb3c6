import { createFailFastIoredis } from "@/lib/shared-store/ioredis";
import { Redis as UpstashRedis } from "@upstash/redis";
import { createIoredisScriptingClient } from "./ioredis-adapter";
import { createMemoryLimiter } from "./memory";
import { WRITE_WINDOW_MS, type WriteLimiter } from "./policy";
import { createStoreLimiter } from "./store-limiter";

export { rateLimitHeaders } from "./headers";
export type { RateLimitResult, WriteLimiter } from "./policy";

const DEFAULT_PREFIX = "permalink:rate-limit:writes";

export type WriteLimiterOptions = {
  perMinute: number;
  prefix?: string;
  upstash?: { url: string; token: string };
  redisUrl?: string;
  /** Clock of the in-memory limiter only. */
  now?: () => number;
};

export interface ClosableWriteLimiter extends WriteLimiter {
  /** Releases the Redis connection, if any. */
  close(): Promise<void>;
}

/** Upstash when configured, else a local Redis, else in-process memory. Redis stores fall back to memory when they fail. */
export function createWriteLimiter(options: WriteLimiterOptions): ClosableWriteLimiter {
  const memoryLimiter = createMemoryLimiter({ limit: options.perMinute, windowMs: WRITE_WINDOW_MS, now: options.now });
  const storeOptions = { perMinute: options.perMinute, prefix: options.prefix ?? DEFAULT_PREFIX, fallback: memoryLimiter };

  if (options.upstash) {
    const redis = new UpstashRedis({ ...options.upstash, retry: { retries: 1 } });
    const limiter = createStoreLimiter({ ...storeOptions, kind: "upstash", redis });
    return { limit: limiter.limit, close: async () => {} };
  }
  if (options.redisUrl) {
    const redis = createFailFastIoredis(options.redisUrl);
    const limiter = createStoreLimiter({ ...storeOptions, kind: "redis", redis: createIoredisScriptingClient(redis) });
    return { limit: limiter.limit, close: async () => redis.disconnect() };
  }
  return { limit: memoryLimiter.limit, close: async () => {} };
}
