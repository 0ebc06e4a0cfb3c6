import { clock } from "@/lib/clock";
import { withDeadline } from "@/lib/deadline";
import { onInvalidation } from "@/lib/links/invalidation";
import { processSingleton } from "@/lib/process-singleton";
import { LRUCache } from "lru-cache";
import { type DomainDestinations, verifiedHostname } from "./store";

/** How long an answer is trusted without news from the invalidation bus (the bus normally makes changes visible at once). */
const SERVED_TTL_MS = 10 * 60_000;
const NOT_SERVED_TTL_MS = 60_000;
/** A hung database must not hold a request up: past this, the host counts as unknown (null). */
const LOOKUP_DEADLINE_MS = 1000;
/** Bounds memory against requests with made-up Host headers. */
const MAX_HOSTS = 10_000;

/** A host's answer: not a verified domain (false), or one, with where it sends its root and unknown codes. */
type Served = false | DomainDestinations;
type Entry = { served: Served; expiresAt: number };
type HostLookup = { answers: LRUCache<string, Entry>; inFlight: Map<string, Promise<Served | null>>; stopListening(): void };

/**
 * One answer per host and process, dropped when the bus says the host's domain was verified,
 * changed or removed (on every instance, with Redis), so a lookup is one cache hit, or one indexed
 * query on a miss, however many domains exist.
 */
const processLookup = processSingleton("verifiedHosts", (): HostLookup => {
  const answers = new LRUCache<string, Entry>({ max: MAX_HOSTS });
  const stopListening = onInvalidation((invalidation) => {
    if (invalidation.kind === "domain") answers.delete(invalidation.hostname);
    if (invalidation.kind === "everything") answers.clear();
  });
  return { answers, inFlight: new Map(), stopListening };
});

/**
 * Whether short links are served on this host (a custom domain some workspace verified).
 * Verification is never taken back, so a domain with links keeps resolving. When the database
 * cannot answer and nothing is known about the host, the answer is true: the visit goes on to
 * resolution, which serves cached links or says the service is unavailable, never a wrong 404.
 */
export async function isVerifiedCustomDomain(hostname: string): Promise<boolean> {
  return (await lookUpVerifiedHost(hostname)) ?? true;
}

/** Whether a verified custom domain has this hostname; null when the database cannot say in time and nothing is cached. */
export async function lookUpVerifiedHost(hostname: string): Promise<boolean | null> {
  const served = await lookUpCustomDomain(hostname);
  return served === null ? null : served !== false;
}

/**
 * The verified custom domain of this hostname with its destinations (false: none); null when the
 * database cannot say in time and nothing is cached. The same one answer per host as the doors'
 * lookup, so a visit pays nothing more for knowing them.
 */
export async function lookUpCustomDomain(hostname: string): Promise<Served | null> {
  const lookup = processLookup.get();
  const known = lookup.answers.get(hostname);
  if (known && known.expiresAt > clock().now()) return known.served;
  let pending = lookup.inFlight.get(hostname);
  if (!pending) {
    pending = ask(lookup, hostname, known).finally(() => lookup.inFlight.delete(hostname));
    lookup.inFlight.set(hostname, pending);
  }
  return pending;
}

async function ask(lookup: HostLookup, hostname: string, stale: Entry | undefined): Promise<Served | null> {
  try {
    const served = (await withDeadline(verifiedHostname(hostname), LOOKUP_DEADLINE_MS)) ?? false;
    lookup.answers.set(hostname, { served, expiresAt: clock().now() + (served ? SERVED_TTL_MS : NOT_SERVED_TTL_MS) });
    return served;
  } catch {
    return stale?.served ?? null;
  }
}

/** Forget every answer (tests; the bus's "everything" does the same). */
export function forgetVerifiedHosts(): void {
  processLookup.peek()?.answers.clear();
}
