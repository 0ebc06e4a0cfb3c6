import { clock, DAY_MS } from "@/lib/clock";
import { config } from "@/lib/config";
import { forgetVerifiedHosts } from "@/lib/domains/verified-hosts";
import { limiterFor } from "@/lib/http/write-limit";
import { onInvalidation } from "@/lib/links/invalidation";
import { verifyPassword } from "@/lib/links/password";
import { log } from "@/lib/log";
import { processSingleton } from "@/lib/process-singleton";
import { safetyChecker } from "@/lib/safety/instance";
import { withVerdictCache } from "@/lib/safety/verdict-cache";
import { LRUCache } from "lru-cache";
import { DatabaseTrouble } from "./database-trouble";
import { cacheKey, LinkCache } from "./link-cache";
import type { GuessBudget, PasswordDeps } from "./password-gate";
import type { ResolutionDeps } from "./resolve";
import type { ReleasePolicy } from "./store";
import * as store from "./store";

type Runtime = { deps: ResolutionDeps; stopListening(): void };
const runtime = processSingleton("resolutionRuntime", createRuntime);

/** The process's resolution dependencies, built once from configuration and shared by both doors. */
export function resolutionRuntime(): ResolutionDeps {
  return runtime.get().deps;
}

/** Tests only: rebuild from the current configuration and clock. */
export function resetResolutionRuntime(): void {
  runtime.reset()?.stopListening();
}

/** The quarantine rules from configuration: spacing of counted checks, and what releases a link. */
export function releasePolicy(): ReleasePolicy {
  const settings = config();
  return {
    spacingMs: settings.QUARANTINE_CHECK_SPACING_SECONDS * 1000,
    releaseChecks: settings.QUARANTINE_RELEASE_CHECKS,
    releaseAgeMs: settings.QUARANTINE_RELEASE_DAYS * DAY_MS,
  };
}

/**
 * Password guesses a minute at one code (from anyone, and from one client network) and from one
 * client network at any code: the code's bound stops a spread-out guesser, the network's one
 * visitor trying many codes. A code's budget spent by others leaves each network its first
 * tries, so nobody can lock a link's visitors out by guessing at it; those tries are still
 * bounded by the network's own budgets. Every window is a minute, so a visitor with the right
 * password waits at most that long.
 */
export const GUESSES_PER_CODE = 10;
export const GUESSES_PER_NETWORK = 30;
export const FIRST_TRIES_AT_A_BUSY_CODE = 3;
const REMEMBERED_PASSWORDS = 10_000;

function tryAgainAt(resetAt: number): GuessBudget {
  return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((resetAt - Date.now()) / 1000)) };
}

function passwordDeps(): PasswordDeps {
  const remembered = new LRUCache<string, true>({ max: REMEMBERED_PASSWORDS, ttl: 10 * 60_000 });
  return {
    verify: verifyPassword,
    async spendGuess(code, network): Promise<GuessBudget> {
      const fromNetworkAtCode = await limiterFor("permalink:rate-limit:password-code-network", GUESSES_PER_CODE).limit(
        `${code} ${network}`,
      );
      if (!fromNetworkAtCode.success) return tryAgainAt(fromNetworkAtCode.resetAt);
      const fromNetwork = await limiterFor("permalink:rate-limit:password-network", GUESSES_PER_NETWORK).limit(network);
      if (!fromNetwork.success) return tryAgainAt(fromNetwork.resetAt);
      const atCode = await limiterFor("permalink:rate-limit:password-code", GUESSES_PER_CODE).limit(code);
      const triesFromNetwork = fromNetworkAtCode.limit - fromNetworkAtCode.remaining;
      if (!atCode.success && triesFromNetwork > FIRST_TRIES_AT_A_BUSY_CODE) return tryAgainAt(atCode.resetAt);
      return { ok: true };
    },
    remembered: { has: (key) => remembered.has(key), add: (key) => void remembered.set(key, true) },
  };
}

function createRuntime(): Runtime {
  const settings = config();
  const cache = new LinkCache(settings.RESOLUTION_CACHE_SECONDS * 1000);
  const stopListening = onInvalidation((invalidation) => {
    if (invalidation.kind === "link") {
      cache.delete(cacheKey(invalidation.host, invalidation.slug));
      store.readFromPrimaryAfterChange(invalidation.host, invalidation.slug);
    } else if (invalidation.kind === "everything") {
      cache.clear();
      store.readFromPrimaryAfterChange(null, null);
      forgetVerifiedHosts();
    }
  });
  const deps: ResolutionDeps = {
    cache,
    trouble: new DatabaseTrouble(),
    clock: { now: () => clock().now() },
    checker: withVerdictCache(
      safetyChecker(),
      {
        decidedMs: settings.SAFETY_VERDICT_CACHE_SECONDS * 1000,
        unknownMs: settings.SAFETY_UNKNOWN_VERDICT_CACHE_SECONDS * 1000,
        deadlineMs: settings.SAFETY_CHECK_DEADLINE_MS,
      },
      { now: () => clock().now() },
    ),
    policy: releasePolicy(),
    store,
    passwords: passwordDeps(),
    log: (message, error) => log().error({ err: error }, message),
  };
  return { deps, stopListening };
}
