import { LRUCache } from "lru-cache";
import type { Clock } from "@/lib/clock";
import type { SafetyChecker, Verdict } from "./verdict";

const MAX_CACHED_VERDICTS = 50_000;

/**
 * Wraps a checker for the resolution path: a decided verdict (clean or malicious) is reused
 * for `ttlMs`, and concurrent checks of one URL share one run. An unknown verdict is never
 * cached, so an outage is retried on the next visit.
 */
export function withVerdictCache(checker: SafetyChecker, ttlMs: number, clock: Clock): SafetyChecker {
  const decided = new LRUCache<string, { verdict: Verdict; until: number }>({ max: MAX_CACHED_VERDICTS });
  const running = new Map<string, Promise<Verdict>>();

  async function runOnce(url: string): Promise<Verdict> {
    try {
      const verdict = await checker.check(url);
      if (verdict.status !== "unknown" && ttlMs > 0) decided.set(url, { verdict, until: clock.now() + ttlMs });
      return verdict;
    } finally {
      running.delete(url);
    }
  }

  return {
    name: `${checker.name}+cache`,
    check(url) {
      const cached = decided.get(url);
      if (cached && cached.until > clock.now()) return Promise.resolve(cached.verdict);
      let pending = running.get(url);
      if (!pending) {
        pending = runOnce(url);
        running.set(url, pending);
      }
      return pending;
    },
  };
}
