import { clock } from "@/lib/clock";
import { storedRules, storedSchedule } from "@/lib/links/routing";
import { ACTIVE } from "@/lib/links/status";
import { safetyChecker } from "@/lib/safety/instance";
import type { Verdict } from "@/lib/safety/verdict";
import { blockForVerdict } from "./link-status";
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

export type RecheckOptions = { quarantinedLimit: number; activeSample: number };

type Outcome = "released" | "blocked" | "unchanged";

const CONCURRENT_CHECKS = 8;

/** One run's share: enough to keep up with a busy day, small enough to finish within a cron call. */
export const DEFAULT_RUN: RecheckOptions = { quarantinedLimit: 200, activeSample: 20 };

/**
 * The background re-check. Quarantined links due a check (never checked, or not within the
 * spacing), oldest first, each get a live check that can count toward release; a sample of
 * active links, least recently checked first, is checked for destinations that turned bad.
 * Either way every destination the link holds is checked (its own, each rule's, each scheduled
 * one), and one found malicious blocks the whole link.
 * Two runs at once are safe: countCleanCheck counts at most once per spacing, blockForAbuse
 * blocks once.
 */
export async function recheckLinks(options: RecheckOptions = DEFAULT_RUN): Promise<RecheckTotals> {
  const now = clock().now();
  const policy = releasePolicy();
  const quarantined = await quarantinedLinksDue(new Date(now - policy.spacingMs), options.quarantinedLimit);
  const active = await leastRecentlyCheckedActiveLinks(options.activeSample);
  const check = liveCheckOnce();
  const outcomes = await runConcurrently(
    [
      ...quarantined.map((link) => async () => recheckQuarantined(link, await linkVerdict(link, now, check), now, policy)),
      ...active.map((link) => async () => recheckActive(link, await linkVerdict(link, now, check), now)),
    ],
    CONCURRENT_CHECKS,
  );
  return {
    checked: outcomes.length,
    released: outcomes.filter((outcome) => outcome === "released").length,
    blocked: outcomes.filter((outcome) => outcome === "blocked").length,
  };
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
