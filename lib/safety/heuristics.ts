import { stripTrailingDots } from "./hostnames";
import type { SafetyChecker, Verdict } from "./verdict";

export type HeuristicCheckerOptions = {
  /** Host names this service serves short links on; a link to one of them would loop. */
  ownHosts: string[];
};

const SOURCE = "heuristics";
const EXECUTABLE_EXTENSIONS: readonly string[] = [
  ".exe",
  ".scr",
  ".msi",
  ".apk",
  ".bat",
  ".cmd",
  ".ps1",
  ".vbs",
  ".jar",
];

export function createHeuristicChecker(options: HeuristicCheckerOptions): SafetyChecker {
  const ownHosts = new Set(options.ownHosts.map(canonicalHostname));
  return {
    name: SOURCE,
    async check(url) {
      const parsed = URL.parse(url);
      if (parsed === null) return { status: "unknown", source: SOURCE, reason: "error" };
      if (ownHosts.has(stripTrailingDots(parsed.hostname))) return policyHit(redirectLoopDetail());
      const extension = executableExtension(parsed.pathname);
      if (extension !== null) return policyHit(executableDetail(extension));
      return { status: "clean", source: SOURCE };
    },
  };
}

/** Lower-case A-label host without port or trailing dot, as WHATWG URL would give it. */
function canonicalHostname(host: string): string {
  return stripTrailingDots(URL.parse(`http://${host}`)?.hostname ?? host.toLowerCase());
}

function executableExtension(pathname: string): string | null {
  const lastSegment = safelyDecode(pathname.slice(pathname.lastIndexOf("/") + 1)).toLowerCase();
  return EXECUTABLE_EXTENSIONS.find((extension) => lastSegment.endsWith(extension)) ?? null;
}

function safelyDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function policyHit(detail: string): Verdict {
  return { status: "malicious", source: SOURCE, threat: "policy", detail };
}

function redirectLoopDetail(): string {
  return "The destination is one of this service's own short-link hosts, which would make a redirect loop.";
}

function executableDetail(extension: string): string {
  return `The destination downloads an executable file (${extension}), which short links may not point at.`;
}
