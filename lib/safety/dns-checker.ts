import { settleBeforeAbort } from "./abort";
import type { DnsChecker } from "./dns";
import type { SafetyChecker } from "./verdict";

const SOURCE = "dns";

/** Re-applies the destination address rules to what the destination's host resolves to now. */
export function createDnsSafetyChecker(dns: DnsChecker): SafetyChecker {
  return {
    name: SOURCE,
    async check(url, signal) {
      const parsed = URL.parse(url);
      if (parsed === null) return { status: "unknown", source: SOURCE, reason: "error" };
      const verdict = await settleBeforeAbort(dns.check(parsed.hostname), signal, () => null);
      if (verdict === null) return { status: "unknown", source: SOURCE, reason: "timeout" };
      switch (verdict.status) {
        case "public":
          return { status: "clean", source: SOURCE };
        case "internal":
          return { status: "malicious", source: SOURCE, threat: "policy", detail: verdict.message };
        case "unresolved":
          return { status: "unknown", source: SOURCE, reason: "unresolved" };
      }
    },
  };
}
