import type { Clock } from "@/lib/clock";
import { withDeadline } from "@/lib/deadline";
import { destinationsOf } from "@/lib/links/destinations";
import { ABUSE, QUARANTINE } from "@/lib/links/status";
import type { Verdict } from "@/lib/safety/verdict";
import type { CachedChecker } from "@/lib/safety/verdict-cache";
import { isPreviewCrawler } from "./crawlers";
import type { DatabaseTrouble } from "./database-trouble";
import { mergeQuery } from "./destination-query";
import { cacheKey, type LinkCache } from "./link-cache";
import { verdictAbuseReason } from "./link-status";
import { checkLink } from "./link-verdict";
import { passwordGate, passwordGateFromMemory, type Granted, type PasswordDeps } from "./password-gate";
import { countryLookupPending, routeOf } from "./rules";
import type { ReleasePolicy } from "./store";
import type { Outcome, ResolvedLink, Route, Visit } from "./types";

/** Everything resolution touches, injected so both doors and the tests share one core. */
export type ResolutionDeps = {
  cache: LinkCache;
  /** Whether lookups are failing: then a stale copy is served at once and re-read in the background. */
  trouble: DatabaseTrouble;
  checker: CachedChecker;
  clock: Clock;
  policy: ReleasePolicy;
  store: {
    findLink(host: string | null, slug: string): Promise<ResolvedLink | null>;
    countCleanCheck(linkId: string, checkedDestination: string, now: number, policy: ReleasePolicy): Promise<ResolvedLink | null>;
    blockForAbuse(linkId: string, reason: string, checkedDestination?: string): Promise<ResolvedLink | null>;
    /** One scan toward the link's scan limit (lib/resolution/store.ts): within it, or the limit is gone and the link as it is now. */
    countScan(link: ResolvedLink): Promise<{ kind: "counted" } | { kind: "gone"; link: ResolvedLink | null }>;
  };
  passwords: PasswordDeps;
  log(message: string, error?: unknown): void;
};

const NOT_FOUND: Outcome = { kind: "not_found" };

/**
 * The outcome from memory alone, or undefined when it needs I/O (a database read, a live check
 * to wait for, a clean check to count, a block to record). The warm path: no promise, no await.
 */
export function resolveFromMemory(visit: Visit, deps: ResolutionDeps): Outcome | undefined {
  const link = deps.cache.fresh(cacheKey(visit.host, visit.slug), deps.clock.now());
  if (link === undefined) return undefined;
  if (link === null) return NOT_FOUND;
  if (link.status === ABUSE) return { kind: "blocked", link };
  // A link without a password pays this one comparison; a protected one is let through by its pass alone here.
  if (link.passwordHash !== null) {
    const gate = passwordGateFromMemory(link, visit, deps.clock.now());
    if (gate === undefined || gate.kind !== "granted") return gate;
  }
  const previewing = showsPreview(link, visit);
  // A scan limit is counted in the database, which alone decides which visits it still covers (a crawler is no scan).
  if (link.scanLimit !== null && !previewing) return undefined;
  if (countryLookupPending(link)) return undefined;
  const route = routeOf(link, visit, deps.clock.now());
  if (link.status === QUARANTINE) {
    const verdict = deps.checker.peek(route.destination);
    if (verdict === undefined || verdict.status === "malicious") return undefined;
    if (verdict.status === "clean" && spacingElapsed(link, deps)) return undefined;
  }
  return redirect(link, route, visit, null, previewing);
}

/**
 * A link-preview crawler at a link with a preview gets the preview page rather than the redirect;
 * a password link's preview is never shown (the crawler gets the password page, as anyone does).
 * A link without a preview pays this one comparison.
 */
function showsPreview(link: ResolvedLink, visit: Visit): boolean {
  return link.preview !== null && link.passwordHash === null && isPreviewCrawler(visit.userAgent);
}

function redirect(link: ResolvedLink, route: Route, visit: Visit, pass: string | null, previewing: boolean): Outcome {
  const location = mergeQuery(route.destination, visit.forward);
  if (previewing) return { kind: "preview", link, location: link.scanLimit === null ? location : null };
  return pass === null
    ? { kind: "redirect", link, location, servedRule: route.rule }
    : { kind: "redirect", link, location, servedRule: route.rule, pass };
}

/** Host and slug to an outcome: redirect, abuse warning, unknown slug or database unavailable. */
export async function resolveVisit(visit: Visit, deps: ResolutionDeps): Promise<Outcome> {
  return resolveFromMemory(visit, deps) ?? resolveWithIo(visit, deps);
}

async function resolveWithIo(visit: Visit, deps: ResolutionDeps): Promise<Outcome> {
  const found = await lookUp(visit.host, visit.slug, deps);
  if (found === "unavailable") return { kind: "unavailable" };
  const { databaseAnswered } = found;
  let link = found.link;
  if (!link) return NOT_FOUND;
  // A blocked link's warning never asks for a password: there is no way through to offer.
  if (link.status === ABUSE) return { kind: "blocked", link };
  let gate: Granted | null = null;
  if (link.passwordHash !== null) {
    const decided = await passwordGate(link, visit, deps.clock.now(), deps.passwords);
    if (decided.kind !== "granted") return decided;
    gate = decided;
  }
  // Past the password, the visit is any other: its scan limit, rules, schedules and the live check decide it.
  const previewing = showsPreview(link, visit);
  if (link.scanLimit !== null && databaseAnswered && !previewing) {
    link = await countTowardScanLimit(link, deps);
    if (link.status === ABUSE) return { kind: "blocked", link };
  }
  await waitForCountries(link);
  const route = routeOf(link, visit, deps.clock.now());
  const checked = link.status === QUARANTINE ? await checkQuarantined(link, route, databaseAnswered, deps) : link;
  if (checked.status === ABUSE) return { kind: "blocked", link: checked };
  return redirect(checked, route, visit, gate?.cookie ?? null, previewing);
}

/**
 * The link this visit is served as once its scan is counted: as cached while within the limit
 * (the last counted visit included: it switched the link), else as it is now in the database (the
 * limit was reached or removed since it was cached), which this instance then serves at once. A
 * count that fails serves the link as it was: the code keeps resolving.
 */
async function countTowardScanLimit(link: ResolvedLink, deps: ResolutionDeps): Promise<ResolvedLink> {
  try {
    const counted = await withDeadline(deps.store.countScan(link), STORE_DEADLINE_MS);
    if (counted.kind === "counted" || counted.link === null) return link;
    deps.cache.update(cacheKey(link.host, link.slug), counted.link);
    return counted.link;
  } catch (error) {
    deps.log("Counting a scan toward a scan limit failed; the visit was served as within it.", error);
    return link;
  }
}

/** Rules by country wait for the country database the first time it is needed (one that cannot be read locates no one). */
async function waitForCountries(link: ResolvedLink): Promise<void> {
  await countryLookupPending(link)?.catch(() => undefined);
}

/** A link as found, and whether the database answered (when it did not, nothing is written to it). */
type Found = { link: ResolvedLink | null; databaseAnswered: boolean };

/** A database that hangs rather than refuses must not hold a visit longer than this, per query. */
const STORE_DEADLINE_MS = 2000;

/**
 * Fresh cache, else the database, else (database down or hung) a stale cached copy; while lookups
 * are failing, the stale copy first, re-read in the background.
 */
async function lookUp(host: string | null, slug: string, deps: ResolutionDeps): Promise<Found | "unavailable"> {
  const key = cacheKey(host, slug);
  const now = deps.clock.now();
  const fresh = deps.cache.fresh(key, now);
  if (fresh !== undefined) return { link: fresh, databaseAnswered: true };
  const stale = deps.cache.stale(key);
  if (stale !== undefined && deps.trouble.failing()) {
    deps.trouble.refreshInBackground(key, () =>
      readIntoCache(key, host, slug, deps).then(
        () => undefined,
        () => undefined,
      ),
    );
    return { link: stale, databaseAnswered: false };
  }
  try {
    return { link: await readIntoCache(key, host, slug, deps), databaseAnswered: true };
  } catch {
    return stale === undefined ? "unavailable" : { link: stale, databaseAnswered: false };
  }
}

/** The link from the database, within the deadline, into the cache; a failure is counted toward the spell and rethrown. */
async function readIntoCache(key: string, host: string | null, slug: string, deps: ResolutionDeps): Promise<ResolvedLink | null> {
  const now = deps.clock.now();
  const stamp = deps.cache.dropStamp(key);
  try {
    const link = await withDeadline(deps.store.findLink(host, slug), STORE_DEADLINE_MS);
    deps.cache.setUnlessDropped(key, link, now, stamp);
    deps.trouble.answered();
    return link;
  } catch (error) {
    if (deps.trouble.failed(now))
      deps.log("Link lookups are failing; serving cached copies at once and re-reading them in the background.", error);
    throw error;
  }
}

/**
 * The live safety check every resolution of a quarantined link runs, on the destination the visit
 * is sent to (a rule's or the link's own). Malicious blocks the whole link at once; clean counts
 * toward release when the spacing allows; unknown fails open without counting.
 */
async function checkQuarantined(
  link: ResolvedLink,
  served: Route,
  databaseAnswered: boolean,
  deps: ResolutionDeps,
): Promise<ResolvedLink> {
  const verdict = await deps.checker
    .check(served.destination)
    .catch((): Verdict => ({ status: "unknown", source: "chain", reason: "error" }));
  if (verdict.status === "malicious") {
    const reason = verdictAbuseReason(verdict, served.rule === null ? { kind: "own" } : { kind: "rule", index: served.rule });
    return block(link, reason, served.destination, databaseAnswered, deps);
  }
  if (verdict.status === "clean" && databaseAnswered && spacingElapsed(link, deps))
    return countIfWholeLinkClean(link, served, verdict, deps);
  return link;
}

/**
 * A check counts toward release only when every destination the link holds is clean, as the
 * background re-check's does: otherwise visits no rule sends elsewhere would release a link whose
 * rule or scheduled destination is harmful. Once a spacing, so the cost stays off most visits.
 */
async function countIfWholeLinkClean(
  link: ResolvedLink,
  served: Route,
  verdict: Verdict,
  deps: ResolutionDeps,
): Promise<ResolvedLink> {
  const now = deps.clock.now();
  // All at once: each waits at most the checker's deadline, so the visit waits one deadline, not one per destination.
  const verdicts = new Map(
    destinationsOf(link, now).map(({ destination }) => [
      destination,
      destination === served.destination ? Promise.resolve(verdict) : deps.checker.check(destination),
    ]),
  );
  const whole = await checkLink(link, now, (url) => verdicts.get(url)!);
  if (whole.status === "malicious")
    return block(link, verdictAbuseReason(whole.verdict, whole.holder), whole.destination, true, deps);
  // One that cannot be decided now is asked again after the spacing, as a count made elsewhere would be: visits stay warm meanwhile.
  return whole.status === "clean" ? countCheck(link, deps) : notBeforeNextSpacing(link, now, deps);
}

/** The link as this instance serves it until the spacing passes again: no clean check is counted before then. */
function notBeforeNextSpacing(link: ResolvedLink, now: number, deps: ResolutionDeps): ResolvedLink {
  const seen = { ...link, lastCountedCheckAt: now };
  deps.cache.update(cacheKey(link.host, link.slug), seen);
  return seen;
}

function spacingElapsed(link: ResolvedLink, deps: ResolutionDeps): boolean {
  return link.lastCountedCheckAt === null || deps.clock.now() - link.lastCountedCheckAt >= deps.policy.spacingMs;
}

async function countCheck(link: ResolvedLink, deps: ResolutionDeps): Promise<ResolvedLink> {
  try {
    const now = deps.clock.now();
    const counted = await withDeadline(
      deps.store.countCleanCheck(link.id, link.destination, now, deps.policy),
      STORE_DEADLINE_MS,
    );
    // Counted elsewhere first (another instance, the background job): skip the UPDATE until the spacing passes again.
    if (!counted) return notBeforeNextSpacing(link, now, deps);
    deps.cache.update(cacheKey(link.host, link.slug), counted);
    return counted;
  } catch (error) {
    deps.log("Counting a clean check failed; it will be counted on a later visit.", error);
    return link;
  }
}

async function block(
  link: ResolvedLink,
  reason: string,
  checkedDestination: string,
  databaseAnswered: boolean,
  deps: ResolutionDeps,
): Promise<ResolvedLink> {
  const blocked: ResolvedLink = { ...link, status: ABUSE, abuseReason: reason };
  deps.cache.update(cacheKey(link.host, link.slug), blocked);
  if (!databaseAnswered) return blocked;
  try {
    await withDeadline(deps.store.blockForAbuse(link.id, reason, checkedDestination), STORE_DEADLINE_MS);
  } catch (error) {
    deps.log("Recording an abuse block failed; the link is blocked in this instance.", error);
  }
  return blocked;
}
