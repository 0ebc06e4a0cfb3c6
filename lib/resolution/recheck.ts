import { clock } from "@/lib/clock";
import { safetyChecker } from "@/lib/safety/instance";
import type { Verdict } from "@/lib/safety/verdict";
import { blockLink, verdictAbuseReason } from "./link-status";
import { announceLinkChange } from "@/lib/links/changes";
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
import { ACTIVE } from "@/lib/links/status";

export type RecheckOptions = { quarantinedLimit: number; activeSample: number };

type Outcome = "released" | "blocked" | "unchanged";

const CONCURRENT_CHECKS = 8;

/**
 * The background re-check. Quarantined links due a check (never checked, or not within the
 * spacing), oldest first, each get a live check that can count toward release; a sample of
 * active links, least recently checked first, is checked for destinations that turned bad.
 * Two runs at once are safe: countCleanCheck counts at most once per spacing, blockForAbuse
 * blocks once.
 */
/** One run's share: enough to keep up with a busy day, small enough to finish within a cron call. */
export const DEFAULT_RUN: RecheckOptions = { quarantinedLimit: 200, activeSample: 20 };

export async function recheckLinks(options: RecheckOptions = DEFAULT_RUN): Promise<RecheckTotals> {
  const now = clock().now();
  const policy = releasePolicy();
  const quarantined = await quarantinedLinksDue(new Date(now - policy.spacingMs), options.quarantinedLimit);
  const active = await leastRecentlyCheckedActiveLinks(options.activeSample);
  const outcomes = await runConcurrently(
    [
      ...quarantined.map((link) => () => recheckQuarantined(link, now, policy)),
      ...active.map((link) => () => recheckActive(link, now)),
    ],
    CONCURRENT_CHECKS,
  );
  return {
    checked: outcomes.length,
    released: outcomes.filter((outcome) => outcome === "released").length,
    blocked: outcomes.filter((outcome) => outcome === "blocked").length,
  };
}

async function recheckQuarantined(link: DueLink, now: number, policy: ReleasePolicy): Promise<Outcome> {
  const verdict = await liveCheck(link);
  if (verdict.status === "malicious") return block(link, verdict);
  if (verdict.status === "unknown") {
    await markChecked(link.id, now);
    return "unchanged";
  }
  const counted = await countCleanCheck(link.id, link.destination, now, policy);
  if (counted?.status !== ACTIVE) return "unchanged";
  announceLinkChange("status_changed", counted);
  return "released";
}

async function recheckActive(link: DueLink, now: number): Promise<Outcome> {
  const verdict = await liveCheck(link);
  if (verdict.status === "malicious") return block(link, verdict);
  await markChecked(link.id, now);
  return "unchanged";
}

/** The live chain, not resolution's verdict cache: a destination may have turned bad a minute ago. */
function liveCheck(link: DueLink): Promise<Verdict> {
  return safetyChecker().check(link.destination);
}

async function block(link: DueLink, verdict: Extract<Verdict, { status: "malicious" }>): Promise<Outcome> {
  return (await blockLink(link.id, verdictAbuseReason(verdict), link.destination)) ? "blocked" : "unchanged";
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
