import { hashedClientNetwork, keyedHash } from "@/lib/http/client-address";
import { DomainError } from "@/lib/http/errors";
import { rateLimitHeaders } from "@/lib/http/rate-limit";
import { limiterFor } from "@/lib/http/write-limit";
import { SIGN_IN_EMAILS_LIMITED } from "./sign-in-errors";

/** Magic links one address may be sent a minute: enough for a retry or two, too few to flood a mailbox. */
export const SIGN_IN_EMAILS_PER_ADDRESS = 3;
/** Magic links one client network (an IPv4 /24, an IPv6 /64) may ask for a minute, to any addresses. */
export const SIGN_IN_EMAILS_PER_NETWORK = 10;

const ADDRESS_PREFIX = "permalink:rate-limit:sign-in-address";
const NETWORK_PREFIX = "permalink:rate-limit:sign-in-network";

/**
 * Spends one sign-in e-mail from the address's budget and the client network's (the write-limit
 * machinery: Redis or Upstash when configured, so every instance shares it); over either, a 429
 * with SIGN_IN_EMAILS_LIMITED. The address is keyed by its hash, never stored raw.
 */
export async function limitSignInEmail(normalisedAddress: string, request: Request): Promise<void> {
  const budgets = [
    { limiter: limiterFor(ADDRESS_PREFIX, SIGN_IN_EMAILS_PER_ADDRESS), key: keyedHash(`sign-in:${normalisedAddress}`) },
    { limiter: limiterFor(NETWORK_PREFIX, SIGN_IN_EMAILS_PER_NETWORK), key: hashedClientNetwork(request) },
  ];
  for (const { limiter, key } of budgets) {
    const result = await limiter.limit(key);
    if (!result.success) throw new DomainError("rate_limited", SIGN_IN_EMAILS_LIMITED, rateLimitHeaders(result, Date.now()));
  }
}
