import { createBlocklistChecker } from "./blocklist";
import { createDnsChecker } from "./dns";
import { createDnsSafetyChecker } from "./dns-checker";
import { createHeuristicChecker } from "./heuristics";
import type { SafetyChecker, Verdict } from "./verdict";
import { createWebRiskChecker } from "./web-risk";

export { createBlocklistChecker, lookupExpressions, parseBlocklist } from "./blocklist";
export { createDnsSafetyChecker } from "./dns-checker";
export { createHeuristicChecker } from "./heuristics";
export type { SafetyChecker, Threat, UnknownReason, Verdict } from "./verdict";
export { createWebRiskChecker } from "./web-risk";

export type DefaultCheckerOptions = {
  blocklistFile?: string;
  ownHosts: string[];
  /** Hosts served that change at run time (verified custom domains). */
  isServedHost?: (hostname: string) => Promise<boolean>;
  /** "host:port" of a DNS server; unset means the system resolver. */
  dnsResolver?: string;
  /** Enables the Google Web Risk adapter. */
  webRiskApiKey?: string;
  webRiskBaseUrl?: string;
  now?: () => number;
};

/**
 * Runs every checker at once. The first "malicious" verdict wins and aborts the rest; the result
 * is "clean" only when every checker said clean; otherwise it is the first "unknown" in chain
 * order. A checker that throws counts as unknown with reason "error".
 */
export function createCompositeChecker(name: string, checkers: SafetyChecker[]): SafetyChecker {
  if (checkers.length === 0) throw new Error("A composite safety checker needs at least one checker.");
  return {
    name,
    check(url, signal) {
      const stopOthers = new AbortController();
      const combined = signal === undefined ? stopOthers.signal : AbortSignal.any([signal, stopOthers.signal]);
      return new Promise<Verdict>((resolve) => {
        const verdicts: Verdict[] = [];
        let remaining = checkers.length;
        checkers.forEach((checker, index) => {
          void runChecker(checker, url, combined).then((verdict) => {
            verdicts[index] = verdict;
            remaining -= 1;
            if (verdict.status === "malicious") {
              stopOthers.abort();
              resolve(verdict);
            } else if (remaining === 0) {
              resolve(combineHarmless(name, verdicts));
            }
          });
        });
      });
    },
  };
}

async function runChecker(checker: SafetyChecker, url: string, signal: AbortSignal): Promise<Verdict> {
  try {
    return await checker.check(url, signal);
  } catch {
    return { status: "unknown", source: checker.name, reason: "error" };
  }
}

function combineHarmless(name: string, verdicts: Verdict[]): Verdict {
  return verdicts.find((verdict) => verdict.status !== "clean") ?? { status: "clean", source: name };
}

/** The offline chain (blocklist, heuristics, DNS), plus Web Risk when an API key is given. */
export function createDefaultChecker(options: DefaultCheckerOptions): SafetyChecker {
  const checkers: SafetyChecker[] = [
    ...ruleCheckers(options),
    createDnsSafetyChecker(createDnsChecker({ resolver: options.dnsResolver })),
  ];
  if (options.webRiskApiKey !== undefined) {
    checkers.push(
      createWebRiskChecker({
        apiKey: options.webRiskApiKey,
        baseUrl: options.webRiskBaseUrl,
        now: options.now,
      }),
    );
  }
  return createCompositeChecker("default", checkers);
}

/**
 * The rules that need no lookup (blocklist, heuristics): what a dry run of an import checks, so
 * that validating a file of 100,000 rows makes no DNS query or Web Risk call.
 */
export function createRulesChecker(options: DefaultCheckerOptions): SafetyChecker {
  return createCompositeChecker("rules", ruleCheckers(options));
}

function ruleCheckers(options: DefaultCheckerOptions): SafetyChecker[] {
  return [
    createBlocklistChecker({ file: options.blocklistFile, now: options.now }),
    createHeuristicChecker({ ownHosts: options.ownHosts, isServedHost: options.isServedHost }),
  ];
}
