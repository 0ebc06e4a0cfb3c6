import { clock } from "@/lib/clock";
import { withDeadline } from "@/lib/deadline";
import { processSingleton } from "@/lib/process-singleton";
import { LRUCache } from "lru-cache";
import { isVerifiedHostname } from "./store";

/** A newly verified domain counts within this long; destinations already on it were refused or accepted before it was ours. */
const ANSWER_TTL_MS = 60_000;
/** The live check runs on visits: a hung database must not hold it up (a throw makes the heuristic "unknown"). */
const QUERY_DEADLINE_MS = 1000;
const MAX_HOSTS = 10_000;

type Entry = { served: boolean; expiresAt: number };
const processAnswers = processSingleton("servedCustomDomains", () => new LRUCache<string, Entry>({ max: MAX_HOSTS }));

/**
 * Whether a verified custom domain serves short links on this host: a destination there would
 * loop. One indexed query per host a minute (the unique index on verified hostnames), bounded by
 * a deadline; when the database cannot answer, the last answer stands, or the check is unknown.
 * Read here rather than through lib/domains, which sits above the safety rules it reuses.
 */
export async function isServedCustomDomain(hostname: string): Promise<boolean> {
  const answers = processAnswers.get();
  const known = answers.get(hostname);
  if (known && known.expiresAt > clock().now()) return known.served;
  try {
    const served = await withDeadline(isVerifiedHostname(hostname), QUERY_DEADLINE_MS);
    answers.set(hostname, { served, expiresAt: clock().now() + ANSWER_TTL_MS });
    return served;
  } catch (error) {
    if (known) return known.served;
    throw error;
  }
}
