import type { RateLimitResult, WriteLimiter } from "./policy";

const DEFAULT_MAX_TRACKED_PRINCIPALS = 10_000;

export type MemoryLimiterOptions = {
  limit: number;
  windowMs: number;
  now?: () => number;
  maxTrackedPrincipals?: number;
};

export interface MemoryLimiter extends WriteLimiter {
  trackedPrincipals(): number;
}

/**
 * Exact sliding window (a log of accepted hits per principal; a request of cost n is n hits), for
 * one process. Memory is bounded by maxTrackedPrincipals × limit timestamps.
 */
export function createMemoryLimiter(options: MemoryLimiterOptions): MemoryLimiter {
  const { limit, windowMs, now = Date.now, maxTrackedPrincipals = DEFAULT_MAX_TRACKED_PRINCIPALS } = options;
  // Hits are oldest first; the Map's insertion order doubles as least-recently-used order.
  const hitsByPrincipal = new Map<string, number[]>();
  let lastSweepAt = Number.NEGATIVE_INFINITY;

  function sweepExpiredPrincipalsOncePerWindow(at: number): void {
    if (at - lastSweepAt < windowMs) return;
    lastSweepAt = at;
    for (const [principal, hits] of hitsByPrincipal) {
      const newestHit = hits.at(-1);
      if (newestHit === undefined || newestHit <= at - windowMs) hitsByPrincipal.delete(principal);
    }
  }

  function takeLiveHits(principal: string, at: number): number[] {
    const hits = hitsByPrincipal.get(principal) ?? [];
    hitsByPrincipal.delete(principal);
    return dropHitsAtOrBefore(hits, at - windowMs);
  }

  function storeHits(principal: string, hits: number[]): void {
    if (hits.length === 0) return;
    if (hitsByPrincipal.size >= maxTrackedPrincipals) evictLeastRecentlyUsed();
    hitsByPrincipal.set(principal, hits);
  }

  function evictLeastRecentlyUsed(): void {
    const oldest = hitsByPrincipal.keys().next();
    if (!oldest.done) hitsByPrincipal.delete(oldest.value);
  }

  async function limitPrincipal(principal: string, cost = 1): Promise<RateLimitResult> {
    const at = now();
    const weight = Math.max(1, Math.min(Math.ceil(cost), limit));
    sweepExpiredPrincipalsOncePerWindow(at);
    const hits = takeLiveHits(principal, at);
    const success = hits.length + weight <= limit;
    if (success) for (let hit = 0; hit < weight; hit++) hits.push(at);
    storeHits(principal, hits);
    // Refused: the budget has room for this cost once enough of the oldest hits have left the window.
    const freeingHit = success ? hits[0] : hits[hits.length + weight - limit - 1];
    return { success, limit, remaining: limit - hits.length, resetAt: (freeingHit ?? at) + windowMs };
  }

  return { limit: limitPrincipal, trackedPrincipals: () => hitsByPrincipal.size };
}

function dropHitsAtOrBefore(hits: number[], cutoff: number): number[] {
  const firstLive = hits.findIndex((hit) => hit > cutoff);
  return firstLive === -1 ? [] : hits.slice(firstLive);
}
