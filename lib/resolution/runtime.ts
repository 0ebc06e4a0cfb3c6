import { clock } from "@/lib/clock";
import { config } from "@/lib/config";
import { forgetVerifiedHosts } from "@/lib/domains/verified-hosts";
import { safetyChecker } from "@/lib/safety/instance";
import { withVerdictCache } from "@/lib/safety/verdict-cache";
import { onInvalidation, publishInvalidation } from "./invalidation";
import { cacheKey, LinkCache } from "./link-cache";
import type { ResolutionDeps } from "./resolve";
import * as store from "./store";

const RUNTIME_KEY = Symbol.for("permalink.resolutionRuntime");
const holder = globalThis as unknown as { [RUNTIME_KEY]?: ResolutionDeps };

const DAY_MS = 24 * 60 * 60 * 1000;

/** The process's resolution dependencies, built once from configuration and shared by both doors. */
export function resolutionRuntime(): ResolutionDeps {
  holder[RUNTIME_KEY] ??= createRuntime();
  return holder[RUNTIME_KEY];
}

/** Tests only: rebuild from the current configuration and clock. */
export function resetResolutionRuntime(): void {
  holder[RUNTIME_KEY] = undefined;
}

function createRuntime(): ResolutionDeps {
  const settings = config();
  const cache = new LinkCache(settings.RESOLUTION_CACHE_SECONDS * 1000);
  onInvalidation((invalidation) => {
    if (invalidation.kind === "link") cache.delete(cacheKey(invalidation.host, invalidation.slug));
    else forgetVerifiedHosts();
  });
  return {
    cache,
    clock: { now: () => clock().now() },
    checker: withVerdictCache(safetyChecker(), settings.SAFETY_VERDICT_CACHE_SECONDS * 1000, { now: () => clock().now() }),
    policy: {
      spacingMs: settings.QUARANTINE_CHECK_SPACING_SECONDS * 1000,
      releaseChecks: settings.QUARANTINE_RELEASE_CHECKS,
      releaseAgeMs: settings.QUARANTINE_RELEASE_DAYS * DAY_MS,
    },
    store,
    linkChanged: (link) => publishInvalidation({ kind: "link", host: link.host, slug: link.slug }),
    log: (message, error) => console.error(message, error instanceof Error ? error.message : (error ?? "")),
  };
}
