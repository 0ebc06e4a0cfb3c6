import { stripTrailingDots } from "./hostnames";
import type { SafetyChecker, Verdict } from "./verdict";

export type HeuristicCheckerOptions = {
  /** Host names this service serves short links on; a link to one of them would loop. */
  ownHosts: string[];
  /** Hosts it also serves that change at run time (verified custom domains); given a canonical host name. */
  isServedHost?: (hostname: string) => Promise<boolean>;
};

const SOURCE = "heuristics";
const EXECUTABLE_EXTENSIONS: readonly string[] = [".exe", ".scr", ".msi", ".apk", ".bat", ".cmd", ".ps1", ".vbs", ".jar"];

export function createHeuristicChecker(options: HeuristicCheckerOptions): SafetyChecker {
  const ownHosts = new Set(options.ownHosts.map(canonicalHostname));
  const isServedHost = async (hostname: string) => ownHosts.has(hostname) || ((await options.isServedHost?.(hostname)) ?? false);
  return {
    name: SOURCE,
    async check(url) {
      const parsed = URL.parse(url);
      if (parsed === null) return { status: "unknown", source: SOURCE, reason: "error" };
      if (await isServedHost(stripTrailingDots(parsed.hostname))) return policyHit(redirectLoopDetail());
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

/**
 * Judged on the decoded path in two readings, since servers differ: with control characters
 * removed ("setup.exe%09"), and cut at the first one, as a server written in C reads "setup.exe%00.txt".
 */
function executableExtension(pathname: string): string | null {
  const decoded = safelyDecode(pathname).toLowerCase();
  const readings = [decoded.replace(CONTROL_CHARACTERS, ""), decoded.split(CONTROL_CHARACTERS)[0]!];
  const fileNames = readings.map(lastFileName);
  return EXECUTABLE_EXTENSIONS.find((extension) => fileNames.some((fileName) => fileName.endsWith(extension))) ?? null;
}

const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/**
 * The name a download would be saved under: the last non-empty path segment ("/setup.exe/"
 * still serves setup.exe), without a ";" path parameter, and without the trailing dots and spaces
 * Windows drops from file names.
 */
function lastFileName(path: string): string {
  const segment = path.split(/[/\\]/).filter(Boolean).at(-1) ?? "";
  return segment.split(";")[0]!.replace(/[. ]+$/, "");
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
