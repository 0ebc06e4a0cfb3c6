import { config } from "@/lib/config";
import type { Principal } from "@/lib/workspaces/types";
import { clientAddress } from "./client-address";
import { ApiError } from "./errors";
import { type ClosableWriteLimiter, createWriteLimiter, rateLimitHeaders } from "./rate-limit";

const globalForLimiter = globalThis as unknown as { permalinkWriteLimiter?: ClosableWriteLimiter };

function writeLimiter(): ClosableWriteLimiter {
  const { WRITE_RATE_LIMIT_PER_MINUTE, UPSTASH_REDIS_REST_URL, UPSTASH_REDIS_REST_TOKEN, REDIS_URL } = config();
  globalForLimiter.permalinkWriteLimiter ??= createWriteLimiter({
    perMinute: WRITE_RATE_LIMIT_PER_MINUTE,
    upstash: UPSTASH_REDIS_REST_URL && UPSTASH_REDIS_REST_TOKEN ? { url: UPSTASH_REDIS_REST_URL, token: UPSTASH_REDIS_REST_TOKEN } : undefined,
    redisUrl: REDIS_URL,
  });
  return globalForLimiter.permalinkWriteLimiter;
}

/** Drops the process's limiter (closing its Redis connection); the next write builds one from the current config(). */
export async function resetWriteLimiter(): Promise<void> {
  const current = globalForLimiter.permalinkWriteLimiter;
  globalForLimiter.permalinkWriteLimiter = undefined;
  await current?.close();
}

/** One write budget per workspace, shared by its members and its key. */
export async function enforceWriteLimit(principal: Principal): Promise<void> {
  await enforceLimit(`workspace:${principal.workspaceId}`, "for this workspace");
}

/** Callers without an account (an agent buying a link) get one write budget per client address. */
export async function enforceClientWriteLimit(request: Request): Promise<void> {
  await enforceLimit(`client:${clientAddress(request)}`, "from your address");
}

async function enforceLimit(key: string, whose: string): Promise<void> {
  const result = await writeLimiter().limit(key);
  if (result.success) return;
  throw new ApiError(
    429,
    `Too many writes this minute ${whose} (limit ${result.limit} a minute); try again shortly.`,
    rateLimitHeaders(result, Date.now()),
  );
}
