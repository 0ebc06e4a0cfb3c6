import { Resolver } from "node:dns/promises";
import { isInternalAddress, isIpLiteral } from "./addresses";
import { stripTrailingDots } from "./hostnames";

export type DnsVerdict =
  { status: "public" } | { status: "internal"; message: string } | { status: "unresolved"; message: string };

export type DnsCheckerOptions = {
  /** "host:port" of a DNS server; unset means the servers of the system configuration (resolv.conf). */
  resolver?: string;
  timeoutMs?: number;
};

export type DnsChecker = { check(hostname: string): Promise<DnsVerdict> };

const DEFAULT_TIMEOUT_MS = 1500;
const PUBLIC: DnsVerdict = { status: "public" };
/**
 * One sentence for every internal answer: naming the address, or even its kind (loopback,
 * private, metadata), would let anyone map a network through our resolver.
 */
const INTERNAL: DnsVerdict = {
  status: "internal",
  message: "The destination points to an internal or private address, which short links may not redirect to.",
};

type FamilyAnswer = { addresses: string[] } | { errorCode: string };

/**
 * Resolves A and AAAA and refuses the host when any answer is internal. NXDOMAIN, SERVFAIL,
 * timeouts and names without addresses are "unresolved": the caller accepts the link into
 * quarantine and checks again later.
 */
export function createDnsChecker(options: DnsCheckerOptions = {}): DnsChecker {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Fails at start-up, not on every check, when the resolver address is malformed.
  createResolver(options.resolver, timeoutMs);
  return {
    async check(hostname) {
      const host = stripTrailingDots(hostname.toLowerCase());
      if (isIpLiteral(host)) return judgeLiteral(host);
      // A resolver per lookup, so that cancelling one lookup leaves concurrent ones alone.
      const answers = await resolveBothFamilies(host, createResolver(options.resolver, timeoutMs), timeoutMs);
      return judgeAnswers(host, answers);
    },
  };
}

function createResolver(server: string | undefined, timeoutMs: number): Resolver {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
  if (server !== undefined) resolver.setServers([server]);
  return resolver;
}

async function resolveBothFamilies(host: string, resolver: Resolver, timeoutMs: number): Promise<FamilyAnswer[]> {
  // c-ares may retry past its per-try timeout; cancelling bounds the whole lookup.
  const deadline = setTimeout(() => resolver.cancel(), timeoutMs);
  try {
    return await Promise.all([resolveFamily(() => resolver.resolve4(host)), resolveFamily(() => resolver.resolve6(host))]);
  } finally {
    clearTimeout(deadline);
  }
}

async function resolveFamily(resolve: () => Promise<string[]>): Promise<FamilyAnswer> {
  try {
    return { addresses: await resolve() };
  } catch (error) {
    const errorCode = dnsErrorCode(error);
    return errorCode === "ENODATA" ? { addresses: [] } : { errorCode };
  }
}

function dnsErrorCode(error: unknown): string {
  if (error instanceof Error && "code" in error && typeof error.code === "string") return error.code;
  return "EUNKNOWN";
}

function judgeLiteral(literal: string): DnsVerdict {
  return isInternalAddress(literal).internal ? INTERNAL : PUBLIC;
}

function judgeAnswers(host: string, answers: FamilyAnswer[]): DnsVerdict {
  const addresses = answers.flatMap((answer) => ("addresses" in answer ? answer.addresses : []));
  if (addresses.some((address) => isInternalAddress(address).internal)) return INTERNAL;
  const failure = answers.find(isFailure);
  if (failure !== undefined) {
    return { status: "unresolved", message: describeFailure(host, failure.errorCode) };
  }
  if (addresses.length === 0) {
    return { status: "unresolved", message: `${host} has no A or AAAA records.` };
  }
  return PUBLIC;
}

function isFailure(answer: FamilyAnswer): answer is { errorCode: string } {
  return "errorCode" in answer;
}

function describeFailure(host: string, errorCode: string): string {
  switch (errorCode) {
    case "ENOTFOUND":
      return `${host} does not exist in DNS (NXDOMAIN).`;
    case "ESERVFAIL":
      return `The DNS server failed to answer for ${host} (SERVFAIL).`;
    case "ETIMEOUT":
    case "ECANCELLED":
      return `The DNS lookup for ${host} timed out.`;
    default:
      return `The DNS lookup for ${host} failed (${errorCode}).`;
  }
}
