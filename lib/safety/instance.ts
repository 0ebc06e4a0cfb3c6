import { config } from "@/lib/config";
import { processSingleton } from "@/lib/process-singleton";
import type { SafetyChecker } from "./checkers";
import { createDefaultChecker, createRulesChecker, type DefaultCheckerOptions } from "./checkers";
import { isServedCustomDomain } from "./served-hosts";

function checkerOptions(): DefaultCheckerOptions {
  const { SAFETY_BLOCKLIST_FILE, DNS_RESOLVER, WEB_RISK_API_KEY, SHORT_BASE_URL, BASE_URL } = config();
  return {
    blocklistFile: SAFETY_BLOCKLIST_FILE,
    dnsResolver: DNS_RESOLVER,
    webRiskApiKey: WEB_RISK_API_KEY,
    // Every host that answers short links: a destination on one of them would loop.
    ownHosts: [new URL(SHORT_BASE_URL).hostname, new URL(BASE_URL).hostname],
    isServedHost: isServedCustomDomain,
  };
}

/** The process's checker chain, built from configuration; shared by creation and resolution. */
const processChecker = processSingleton("safetyChecker", (): SafetyChecker => createDefaultChecker(checkerOptions()));

/** The same chain without its lookups (DNS, Web Risk): the rules a dry run applies. */
const processRulesChecker = processSingleton("safetyRulesChecker", (): SafetyChecker => createRulesChecker(checkerOptions()));

export function safetyChecker(): SafetyChecker {
  return processChecker.get();
}

export function safetyRulesChecker(): SafetyChecker {
  return processRulesChecker.get();
}

export function resetSafetyChecker(): void {
  processChecker.reset();
  processRulesChecker.reset();
}
