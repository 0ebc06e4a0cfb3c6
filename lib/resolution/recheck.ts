import { clock } from "@/lib/clock";
import { stopServingDestination } from "@/lib/domains/destination-blocks";
import { type DomainDue, domainsWithDestinationsDue, markDestinationsChecked } from "@/lib/domains/store";
import { storedRules, storedSchedule } from "@/lib/links/routing";
import { ACTIVE } from "@/lib/links/status";
import { safetyChecker } from "@/lib/safety/instance";
import type { Verdict } from "@/lib/safety/verdict";
import { blockForVerdict, verdictAbuseReason } from "./link-status";
import { checkLink, type LinkVerdict } from "./link-verdict";
import { releasePolicy } from "./runtime";
import type { RecheckTotals } from "./schemas";
import {
  countCleanCheck,
  type DueLink,
  leastRecentlyCheckedActiveLinks,
  markChecked,
  quarantinedLinksDue,
  type ReleasePolicy,
} from "./store";

/** `domainSample`: verified domains whose root_destination and not_found_destination are re-checked (DEFAULT_RUN's when omitted). */
export type RecheckOptions = { quarantinedLimit: number; activeSample: number; domainSample?: number };

type Outcome = "released" | "blocked" | "unchanged";

const CONCURRENT_CHECKS = 8;

/** One run's share: enough to keep up with a busy day, small enough to finish within a cron call. */
export const DEFAULT_RUN = { quarantinedLimit: 200, activeSample: 20, domainSample: 20 } satisfies RecheckOptions;

/**
 * The background re-check. Quarantined links due a check (never checked, or not within the
 * spacing), oldest first, each get a live check that can count toward release; a sample of
 * active links, least recently checked first, is checked for destinations that turned bad.
 * Either way every destination the link holds is checked (its own, each rule's, each scheduled
 * one), and one found malicious blocks the whole link.
 * A sample of verified domains, least recently checked first, has its root_destination and
 * not_found_destination checked the same way (they passed the same gate when set): one found
 * malicious stops being served (the warning page instead of the redirect), which no code on the
 * domain depends on.
 * Two runs at once are safe: countCleanCheck counts at most once per spacing, blockForAbuse
 * blocks once, and so does a domain destination's block.
 */
export async function recheckLinks(options: RecheckOptions = DEFAULT_RUN): Promise<RecheckTotals> {
  const now = clock().now();
  const policy = releasePolicy();
  const quarantined = await quarantinedLinksDue(new Date(now - policy.spacingMs), options.quarantinedLimit);
  const active = await leastRecentlyCheckedActiveLinks(options.activeSample);
  const domains = await domainsWithDestinationsDue(options.domainSample ?? DEFAULT_RUN.domainSample);
  const check = liveCheckOnce();
  const outcomes = await runConcurrently(
    [
      ...quarantined.map((link) => async () => recheckQuarantined(link, await linkVerdict(link, now, check), now, policy)),
      ...active.map((link) => async () => recheckActive(link, await linkVerdict(link, now, check), now)),
    ],
    CONCURRENT_CHECKS,
  );
  const domainOutcomes = await runConcurrently(
    domains.map((domain) => () => recheckDomain(domain, now, check)),
    CONCURRENT_CHECKS,
  );
  return {
    checked: outcomes.length,
    released: outcomes.filter((outcome) => outcome === "released").length,
    blocked: outcomes.filter((outcome) => outcome === "blocked").length,
    domains_checked: domainOutcomes.length,
    domain_destinations_blocked: domainOutcomes.reduce((sum, blocked) => sum + blocked, 0),
  };
}

/**
 * A verified domain's destinations, each checked as a link's are: malicious stops serving it (the
 * reason worded as a blocked link's), clean or unknown leaves it served (as for an active link, an
 * unknown verdict blocks nothing). Answers how many it blocked.
 */
async function recheckDomain(domain: DomainDue, now: number, check: (url: string) => Promise<Verdict>): Promise<number> {
  let blocked = 0;
  const held = [
    ["root", domain.rootDestination],
    ["not_found", domain.notFoundDestination],
  ] as const;
  for (const [kind, destination] of held) {
    if (destination === null) continue;
    const verdict = await check(destination).catch((): Verdict => ({ status: "unknown", source: "chain", reason: "error" }));
    if (verdict.status !== "malicious") continue;
    if (await stopServingDestination(domain.id, kind, destination, verdictAbuseReason(verdict), new Date(now))) blocked++;
  }
  await markDestinationsChecked(domain.id, new Date(now));
  return blocked;
}

async function recheckQuarantined(link: DueLink, verdict: LinkVerdict, now: number, policy: ReleasePolicy): Promise<Outcome> {
  if (verdict.status === "malicious") return block(link, verdict);
  if (verdict.status === "unknown") {
    await markChecked(link.id, now);
    return "unchanged";
  }
  const counted = await countCleanCheck(link.id, link.destination, now, policy);
  return counted?.status === ACTIVE ? "released" : "unchanged";
}

async function recheckActive(link: DueLink, verdict: LinkVerdict, now: number): Promise<Outcome> {
  if (verdict.status === "malicious") return block(link, verdict);
  await markChecked(link.id, now);
  return "unchanged";
}

function linkVerdict(link: DueLink, now: number, check: (url: string) => Promise<Verdict>): Promise<LinkVerdict> {
  const scanLimit =
    link.scanLimitAfter !== null && link.scanLimitDestination !== null
      ? { after: link.scanLimitAfter, destination: link.scanLimitDestination }
      : null;
  return checkLink({ ...link, rules: storedRules(link.rules), schedule: storedSchedule(link.schedule), scanLimit }, now, check);
}

/**
 * The live chain, not resolution's verdict cache (a destination may have turned bad a minute
 * ago), asked once a run per destination however many links hold it.
 */
function liveCheckOnce(): (url: string) => Promise<Verdict> {
  const verdicts = new Map<string, Promise<Verdict>>();
  return (url) => {
    let verdict = verdicts.get(url);
    if (!verdict) verdicts.set(url, (verdict = safetyChecker().check(url)));
    return verdict;
  };
}

async function block(link: DueLink, found: Extract<LinkVerdict, { status: "malicious" }>): Promise<Outcome> {
  return (await blockForVerdict(link.id, found)) ? "blocked" : "unchanged";
}

async function runConcurrently<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}
