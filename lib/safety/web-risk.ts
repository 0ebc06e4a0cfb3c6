import { LRUCache } from "lru-cache";
import { z } from "zod";
import { settleBeforeAbort } from "./abort";
import { createCircuitBreaker } from "./circuit-breaker";
import type { SafetyChecker, Threat, UnknownReason, Verdict } from "./verdict";

export type WebRiskCheckerOptions = {
  apiKey: string;
  /** Defaults to https://webrisk.googleapis.com. */
  baseUrl?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  now?: () => number;
  /** How long a clean answer is reused (Web Risk gives no expiry for clean). */
  cleanTtlMs?: number;
  cacheSize?: number;
  /** Consecutive failed calls that open the circuit. */
  failureThreshold?: number;
  cooldownMs?: number;
};

const SOURCE = "webrisk";
const DEFAULT_BASE_URL = "https://webrisk.googleapis.com";
const DEFAULT_TIMEOUT_MS = 2000;
const DEFAULT_CLEAN_TTL_MS = 10 * 60 * 1000;
const DEFAULT_CACHE_SIZE = 10_000;
const DEFAULT_FAILURE_THRESHOLD = 5;
const DEFAULT_COOLDOWN_MS = 30_000;
const REQUESTED_THREAT_TYPES = ["MALWARE", "SOCIAL_ENGINEERING", "UNWANTED_SOFTWARE"];

// Most severe first: a URL listed for several threats is reported as the first one found here.
const THREAT_BY_WEB_RISK_TYPE: ReadonlyArray<readonly [string, Threat]> = [
  ["MALWARE", "malware"],
  ["SOCIAL_ENGINEERING", "phishing"],
  ["SOCIAL_ENGINEERING_EXTENDED_COVERAGE", "phishing"],
  ["UNWANTED_SOFTWARE", "unwanted"],
];

const searchUrisResponse = z.object({
  threat: z.object({ threatTypes: z.array(z.string()).min(1), expireTime: z.string().optional() }).optional(),
});

type SearchUrisResponse = z.infer<typeof searchUrisResponse>;
type CachedVerdict = { verdict: Verdict; expiresAt: number };

class LookupFailure extends Error {
  constructor(readonly reason: UnknownReason) {
    super(reason);
  }
}

/**
 * Google Web Risk `uris:search` with a verdict cache (malicious until the threat's expireTime,
 * clean for `cleanTtlMs`), one request per URL at a time, and a circuit breaker.
 * Failures, timeouts and an open circuit give "unknown", which is never cached.
 */
export function createWebRiskChecker(options: WebRiskCheckerOptions): SafetyChecker {
  const now = options.now ?? Date.now;
  const fetchImpl = options.fetch ?? fetch;
  const baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const cleanTtlMs = options.cleanTtlMs ?? DEFAULT_CLEAN_TTL_MS;
  const cache = new LRUCache<string, CachedVerdict>({ max: options.cacheSize ?? DEFAULT_CACHE_SIZE });
  const inFlight = new Map<string, Promise<Verdict>>();
  const breaker = createCircuitBreaker({
    failureThreshold: options.failureThreshold ?? DEFAULT_FAILURE_THRESHOLD,
    cooldownMs: options.cooldownMs ?? DEFAULT_COOLDOWN_MS,
    now,
  });

  function cachedVerdict(url: string): Verdict | null {
    const cached = cache.get(url);
    if (cached === undefined) return null;
    if (cached.expiresAt > now()) return cached.verdict;
    cache.delete(url);
    return null;
  }

  async function lookUpAndRemember(url: string): Promise<Verdict> {
    try {
      const body = await searchUris(url);
      breaker.recordSuccess();
      const verdict = verdictFrom(body);
      const expiresAt = verdict.status === "clean" ? now() + cleanTtlMs : threatExpiry(body);
      if (expiresAt > now()) cache.set(url, { verdict, expiresAt });
      return verdict;
    } catch (error) {
      breaker.recordFailure();
      const reason = error instanceof LookupFailure ? error.reason : "error";
      return { status: "unknown", source: SOURCE, reason };
    }
  }

  async function searchUris(url: string): Promise<SearchUrisResponse> {
    let response: Response;
    try {
      response = await fetchImpl(searchUrl(baseUrl, url), {
        headers: { "X-Goog-Api-Key": options.apiKey, Accept: "application/json" },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new LookupFailure(isTimeout(error) ? "timeout" : "error");
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new LookupFailure("error");
    }
    const parsed = searchUrisResponse.safeParse(await readJson(response));
    if (!parsed.success) throw new LookupFailure("error");
    return parsed.data;
  }

  return {
    name: SOURCE,
    async check(url, signal) {
      const cached = cachedVerdict(url);
      if (cached !== null) return cached;
      let pending = inFlight.get(url);
      if (pending === undefined) {
        if (!breaker.tryAcquire()) return { status: "unknown", source: SOURCE, reason: "circuit_open" };
        pending = lookUpAndRemember(url).finally(() => inFlight.delete(url));
        inFlight.set(url, pending);
      }
      // A caller that gives up does not cancel the shared request other callers wait on.
      return settleBeforeAbort(pending, signal, () => ({
        status: "unknown",
        source: SOURCE,
        reason: "timeout",
      }));
    },
  };
}

function searchUrl(baseUrl: string, uri: string): string {
  const url = new URL("/v1/uris:search", baseUrl);
  url.searchParams.set("uri", uri);
  for (const threatType of REQUESTED_THREAT_TYPES) url.searchParams.append("threatTypes", threatType);
  return url.href;
}

async function readJson(response: Response): Promise<unknown> {
  try {
    return await response.json();
  } catch (error) {
    throw new LookupFailure(isTimeout(error) ? "timeout" : "error");
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof DOMException && error.name === "TimeoutError";
}

function verdictFrom(body: SearchUrisResponse): Verdict {
  if (body.threat === undefined) return { status: "clean", source: SOURCE };
  const threatTypes = body.threat.threatTypes;
  return {
    status: "malicious",
    source: SOURCE,
    threat: threatOf(threatTypes),
    detail: `Google Web Risk lists the destination as ${threatTypes.join(", ")}.`,
  };
}

function threatOf(threatTypes: string[]): Threat {
  const known = THREAT_BY_WEB_RISK_TYPE.find(([type]) => threatTypes.includes(type));
  // A threat type newer than this code is still a listing; report it as the mildest kind.
  return known === undefined ? "unwanted" : known[1];
}

function threatExpiry(body: SearchUrisResponse): number {
  const expireTime = Date.parse(body.threat?.expireTime ?? "");
  return Number.isNaN(expireTime) ? 0 : expireTime;
}
