import type { Clock } from "@/lib/clock";
import { LRUCache } from "lru-cache";
import type { SafetyChecker, Verdict } from "./verdict";

const MAX_CACHED_VERDICTS = 50_000;

/** A checker for the resolution path, whose cached verdicts can also be read without waiting. */
export type CachedChecker = SafetyChecker & {
  /**
   * The verdict a visit can use now, from memory: a fresh one, or a stale unknown one (whose
   * re-check this starts in the background). Undefined when the visit must wait for a check.
   */
  peek(url: string): Verdict | undefined;
};

export type VerdictCacheOptions = {
  /** How long a decided verdict (clean or malicious) is reused. */
  decidedMs: number;
  /** How long an unknown verdict (time-out, provider down) is reused before it is checked again. */
  unknownMs: number;
  /** The longest a visit waits for a check; past it the visit goes on with "unknown" and the check finishes for later visits. */
  deadlineMs: number;
};

type Entry = { verdict: Verdict; until: number };
type Run = { verdict: Promise<Verdict>; startedAt: number };

/**
 * Wraps a checker for the resolution path. A decided verdict is reused for `decidedMs`. An unknown
 * one is reused for `unknownMs`, and after that it keeps answering while one re-check runs in the
 * background: a destination whose name servers never answer costs one slow check per instance and
 * period, not one per visitor. Concurrent checks of one URL share one run, and no visit waits for
 * a run longer than `deadlineMs` from the run's start.
 */
export function withVerdictCache(checker: SafetyChecker, options: VerdictCacheOptions, clock: Clock): CachedChecker {
  const remembered = new LRUCache<string, Entry>({ max: MAX_CACHED_VERDICTS });
  const running = new Map<string, Run>();
  const timedOut: Verdict = { status: "unknown", source: checker.name, reason: "timeout" };

  function remember(url: string, verdict: Verdict): void {
    const ttl = verdict.status === "unknown" ? options.unknownMs : options.decidedMs;
    if (ttl > 0) remembered.set(url, { verdict, until: clock.now() + ttl });
  }

  function start(url: string): Run {
    const verdict = checker
      .check(url)
      .catch((): Verdict => ({ status: "unknown", source: checker.name, reason: "error" }))
      .then((settled) => {
        remember(url, settled);
        return settled;
      })
      .finally(() => running.delete(url));
    // Real elapsed time, not the clock: tests move the clock, the deadline is about waiting.
    const run = { verdict, startedAt: performance.now() };
    running.set(url, run);
    return run;
  }

  function peek(url: string): Verdict | undefined {
    const entry = remembered.get(url);
    if (!entry) return undefined;
    if (entry.until > clock.now()) return entry.verdict;
    if (entry.verdict.status !== "unknown") return undefined;
    if (!running.has(url)) start(url);
    return entry.verdict;
  }

  return {
    name: `${checker.name}+cache`,
    peek,
    check(url) {
      const known = peek(url);
      if (known) return Promise.resolve(known);
      const run = running.get(url) ?? start(url);
      const left = options.deadlineMs - (performance.now() - run.startedAt);
      return left > 0 ? withinDeadline(run.verdict, left, timedOut) : Promise.resolve(timedOut);
    },
  };
}

function withinDeadline(verdict: Promise<Verdict>, ms: number, otherwise: Verdict): Promise<Verdict> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<Verdict>((resolve) => {
    timer = setTimeout(() => resolve(otherwise), ms);
  });
  return Promise.race([verdict, deadline]).finally(() => clearTimeout(timer));
}
