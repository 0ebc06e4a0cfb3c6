import { readFile, stat } from "node:fs/promises";
import { isIpLiteral } from "./addresses";
import { normaliseDestination } from "./destination";
import type { SafetyChecker, Threat, Verdict } from "./verdict";

export type BlocklistCheckerOptions = {
  /** Blocklist file; re-read when its modification time or size changes. */
  file?: string;
  now?: () => number;
};

/** Safe-Browsing-style expression ("host/path-prefix") → threat. */
export type Blocklist = ReadonlyMap<string, Threat>;

const SOURCE = "blocklist";
const RELOAD_INTERVAL_MS = 1000;
const DEFAULT_FILE_THREAT: Threat = "policy";
const THREATS: ReadonlySet<string> = new Set<Threat>(["malware", "phishing", "unwanted", "policy"]);
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

type LoadedBlocklist = { blocklist: Blocklist; failed: boolean };
const NOTHING_LOADED: LoadedBlocklist = { blocklist: new Map(), failed: false };

/** Google's Safe Browsing test pages, flagged even without a blocklist file. */
const GOOGLE_TEST_ENTRIES = `
malware.testing.google.test malware
phishing.testing.google.test phishing
unwanted.testing.google.test unwanted
testsafebrowsing.appspot.com/s/malware.html malware
testsafebrowsing.appspot.com/s/phishing.html phishing
testsafebrowsing.appspot.com/s/unwanted.html unwanted
`;

/**
 * One entry a line: a domain (matches the host and its subdomains) or a URL (matches its host and
 * subdomains, under its path as a prefix when the path ends in "/", else that exact path), then an
 * optional threat word (malware, phishing, unwanted, policy; default policy). `#` starts a
 * comment. Lines that cannot be read are skipped.
 */
export function parseBlocklist(text: string): Blocklist {
  const blocklist = new Map<string, Threat>();
  for (const line of text.split(/\r?\n/)) {
    const entry = parseLine(line);
    if (entry !== null) blocklist.set(entry.expression, entry.threat);
  }
  return blocklist;
}

function parseLine(line: string): { expression: string; threat: Threat } | null {
  const content = line.trim().startsWith("#") ? "" : line.replace(/\s+#.*$/, "").trim();
  if (content === "") return null;
  const [target = "", threatWord = DEFAULT_FILE_THREAT, ...extra] = content.split(/\s+/);
  if (extra.length > 0 || !isThreat(threatWord)) return null;
  const expression = entryExpression(target);
  return expression === null ? null : { expression, threat: threatWord };
}

function isThreat(word: string): word is Threat {
  return THREATS.has(word);
}

function entryExpression(target: string): string | null {
  try {
    const url = new URL(normaliseDestination(HAS_SCHEME.test(target) ? target : `http://${target}`));
    return `${url.hostname}${url.pathname}${url.search}`;
  } catch {
    return null;
  }
}

/**
 * The Safe Browsing lookup expressions of a URL: host suffixes (without the bare top-level
 * domain) × path prefixes, most specific host first. Throws when the URL cannot be normalised.
 */
export function lookupExpressions(url: string): string[] {
  const parsed = new URL(normaliseDestination(url));
  const paths = pathPrefixes(parsed.pathname, parsed.search);
  return hostSuffixes(parsed.hostname).flatMap((host) => paths.map((path) => `${host}${path}`));
}

function hostSuffixes(hostname: string): string[] {
  if (isIpLiteral(hostname)) return [hostname];
  const labels = hostname.split(".");
  const count = Math.max(1, labels.length - 1);
  return Array.from({ length: count }, (_, start) => labels.slice(start).join("."));
}

function pathPrefixes(pathname: string, search: string): string[] {
  const prefixes = new Set<string>();
  if (search !== "") prefixes.add(`${pathname}${search}`);
  prefixes.add(pathname);
  let directory = "/";
  prefixes.add(directory);
  for (const segment of pathname.split("/").slice(1, -1)) {
    directory += `${segment}/`;
    prefixes.add(directory);
  }
  return [...prefixes];
}

export function createBlocklistChecker(options: BlocklistCheckerOptions = {}): SafetyChecker {
  const builtIn = parseBlocklist(GOOGLE_TEST_ENTRIES);
  const file = options.file === undefined ? null : createReloadingBlocklist(options.file, options.now ?? Date.now);

  return {
    name: SOURCE,
    async check(url) {
      const loaded = file === null ? NOTHING_LOADED : await file.current();
      let expressions: string[];
      try {
        expressions = lookupExpressions(url);
      } catch {
        return { status: "unknown", source: SOURCE, reason: "error" };
      }
      const hit = findHit(expressions, [loaded.blocklist, builtIn]);
      if (hit !== null) return hit;
      // A configured file that cannot be read leaves the check incomplete, not clean.
      if (loaded.failed) return { status: "unknown", source: SOURCE, reason: "error" };
      return { status: "clean", source: SOURCE };
    },
  };
}

function findHit(expressions: string[], blocklists: Blocklist[]): Verdict | null {
  for (const expression of expressions) {
    for (const blocklist of blocklists) {
      const threat = blocklist.get(expression);
      if (threat !== undefined) {
        return {
          status: "malicious",
          source: SOURCE,
          threat,
          detail: `The destination matches the blocklist entry "${expression}".`,
        };
      }
    }
  }
  return null;
}

function createReloadingBlocklist(file: string, now: () => number) {
  let loaded = NOTHING_LOADED;
  let loadedVersion: string | null = null;
  let lastCheckedAt = Number.NEGATIVE_INFINITY;
  let refreshing: Promise<void> | null = null;

  async function refresh(): Promise<void> {
    try {
      const stats = await stat(file);
      // Size as well as mtime: coarse mtime clocks can miss two edits within one tick.
      const version = `${stats.mtimeMs}:${stats.size}`;
      if (version === loadedVersion && !loaded.failed) return;
      loaded = { blocklist: parseBlocklist(await readFile(file, "utf8")), failed: false };
      loadedVersion = version;
    } catch {
      loaded = { blocklist: loaded.blocklist, failed: true };
    }
  }

  return {
    async current(): Promise<LoadedBlocklist> {
      if (now() - lastCheckedAt >= RELOAD_INTERVAL_MS) {
        lastCheckedAt = now();
        refreshing ??= refresh().finally(() => {
          refreshing = null;
        });
      }
      if (refreshing !== null) await refreshing;
      return loaded;
    },
  };
}
