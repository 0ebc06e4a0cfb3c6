import type { Clock } from "@/lib/clock";
import type { SafetyChecker, Verdict } from "@/lib/safety/verdict";
import { mergeQuery } from "./destination-query";
import { cacheKey, type LinkCache } from "./link-cache";
import type { ReleasePolicy } from "./store";
import { ABUSE, ACTIVE, QUARANTINE, type Outcome, type ResolvedLink, type Visit } from "./types";

/** Everything resolution touches, injected so both doors and the tests share one core. */
export type ResolutionDeps = {
  cache: LinkCache;
  checker: SafetyChecker;
  clock: Clock;
  policy: ReleasePolicy;
  store: {
    findLink(host: string | null, slug: string): Promise<ResolvedLink | null>;
    countCleanCheck(linkId: string, now: number, policy: ReleasePolicy): Promise<ResolvedLink | null>;
    blockForAbuse(linkId: string, reason: string): Promise<ResolvedLink | null>;
  };
  /** Tells every instance that a link changed (status), so none serves a stale copy. */
  linkChanged(link: ResolvedLink): void;
  log(message: string, error?: unknown): void;
};

/** Host and slug to an outcome: redirect, abuse warning, unknown slug or database unavailable. */
export async function resolveVisit(visit: Visit, deps: ResolutionDeps): Promise<Outcome> {
  const link = await lookUp(visit.host, visit.slug, deps);
  if (link === "unavailable") return { kind: "unavailable" };
  if (!link) return { kind: "not_found" };
  const checked = link.status === QUARANTINE ? await checkQuarantined(link, deps) : link;
  if (checked.status === ABUSE) return { kind: "blocked", link: checked };
  return { kind: "redirect", link: checked, location: mergeQuery(checked.destination, visit.forward) };
}

/** Fresh cache, else the database, else (database down) a stale cached copy. */
async function lookUp(host: string | null, slug: string, deps: ResolutionDeps): Promise<ResolvedLink | null | "unavailable"> {
  const key = cacheKey(host, slug);
  const now = deps.clock.now();
  const fresh = deps.cache.fresh(key, now);
  if (fresh !== undefined) return fresh;
  try {
    const link = await deps.store.findLink(host, slug);
    deps.cache.set(key, link, now);
    return link;
  } catch (error) {
    deps.log("Link lookup failed; serving the cached copy if there is one.", error);
    const stale = deps.cache.stale(key);
    return stale === undefined ? "unavailable" : stale;
  }
}

/**
 * The live safety check every resolution of a quarantined link runs. Malicious blocks at once;
 * clean counts toward release when the spacing allows; unknown fails open without counting.
 */
async function checkQuarantined(link: ResolvedLink, deps: ResolutionDeps): Promise<ResolvedLink> {
  const verdict = await deps.checker.check(link.destination).catch((): Verdict => ({ status: "unknown", source: "chain", reason: "error" }));
  if (verdict.status === "malicious") return block(link, `${verdict.detail} (${verdict.source}: ${verdict.threat})`, deps);
  if (verdict.status === "clean" && spacingElapsed(link, deps)) return countCheck(link, deps);
  return link;
}

function spacingElapsed(link: ResolvedLink, deps: ResolutionDeps): boolean {
  return link.lastCountedCheckAt === null || deps.clock.now() - link.lastCountedCheckAt >= deps.policy.spacingMs;
}

async function countCheck(link: ResolvedLink, deps: ResolutionDeps): Promise<ResolvedLink> {
  try {
    const counted = await deps.store.countCleanCheck(link.id, deps.clock.now(), deps.policy);
    if (!counted) return link;
    deps.cache.update(cacheKey(link.host, link.slug), counted);
    if (counted.status === ACTIVE) deps.linkChanged(counted);
    return counted;
  } catch (error) {
    deps.log("Counting a clean check failed; it will be counted on a later visit.", error);
    return link;
  }
}

async function block(link: ResolvedLink, reason: string, deps: ResolutionDeps): Promise<ResolvedLink> {
  const blocked: ResolvedLink = { ...link, status: ABUSE, abuseReason: reason };
  deps.cache.update(cacheKey(link.host, link.slug), blocked);
  try {
    const stored = await deps.store.blockForAbuse(link.id, reason);
    if (stored) deps.linkChanged(stored);
  } catch (error) {
    deps.log("Recording an abuse block failed; the link is blocked in this instance.", error);
  }
  return blocked;
}
