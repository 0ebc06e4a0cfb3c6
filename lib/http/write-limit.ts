import { config } from "@/lib/config";
import { processSingleton } from "@/lib/process-singleton";
import { hashedClientAddress } from "./client-address";
import { DomainError } from "./errors";
import { type ClosableWriteLimiter, createWriteLimiter, rateLimitHeaders, type WriteLimiter } from "./rate-limit";

const WRITE_LIMIT_PREFIX = "permalink:rate-limit:writes";
const IMPORT_WRITE_LIMIT_PREFIX = "permalink:rate-limit:import-writes";

const processLimiters = processSingleton("writeLimiters", () => new Map<string, ClosableWriteLimiter>());

function limiters(): Map<string, ClosableWriteLimiter> {
  return processLimiters.get();
}

/**
 * The process's limiter for one budget, built from the current config() on first use and kept per
 * prefix (so `perMinute` takes effect only after resetWriteLimiter()).
 */
export function limiterFor(prefix: string, perMinute: number): ClosableWriteLimiter {
  const cached = limiters().get(prefix);
  if (cached) return cached;
  const { UPSTASH_REDIS_REST_URL, UPSTASH_REDIS_REST_TOKEN, REDIS_URL } = config();
  const limiter = createWriteLimiter({
    perMinute,
    prefix,
    upstash:
      UPSTASH_REDIS_REST_URL && UPSTASH_REDIS_REST_TOKEN
        ? { url: UPSTASH_REDIS_REST_URL, token: UPSTASH_REDIS_REST_TOKEN }
        : undefined,
    redisUrl: REDIS_URL,
  });
  limiters().set(prefix, limiter);
  return limiter;
}

/** Drops the process's limiters (closing their Redis connections); the next request builds them from the current config(). */
export async function resetWriteLimiter(): Promise<void> {
  const current = [...limiters().values()];
  limiters().clear();
  await Promise.all(current.map((limiter) => limiter.close()));
}

/** One write budget per workspace, shared by its members and its key. */
export async function enforceWriteLimit(workspaceId: string): Promise<void> {
  await enforceLimit(writeLimiter(), `workspace:${workspaceId}`, "Too many writes this minute for this workspace");
}

/**
 * An import's writes, one a link, from a budget of their own per workspace (IMPORT_WRITES_PER_MINUTE),
 * never from the workspace's write budget: the workspace keeps creating links while a job runs.
 */
export async function enforceImportWriteLimit(workspaceId: string): Promise<void> {
  await enforceLimit(
    limiterFor(IMPORT_WRITE_LIMIT_PREFIX, config().IMPORT_WRITES_PER_MINUTE),
    `workspace:${workspaceId}`,
    "Too many imported links this minute for this workspace",
  );
}

/** Callers without an account (an agent buying a link) get one write budget per client address. */
export async function enforceClientWriteLimit(request: Request): Promise<void> {
  await enforceLimit(writeLimiter(), `client:${hashedClientAddress(request)}`, "Too many writes this minute from your address");
}

/**
 * Spends `cost` (one request unless said) from `key`'s budget; over budget, throws a 429 with
 * rate-limit headers whose message is `sentence` followed by the limit, for example "Too many
 * writes this minute", and what this request counts as when it counts as more than one.
 */
export async function enforceLimit(limiter: WriteLimiter, key: string, sentence: string, cost = 1): Promise<void> {
  const result = await limiter.limit(key, cost);
  if (result.success) return;
  const counted = cost > 1 ? `; this one counts as ${Math.min(cost, result.limit)}` : "";
  throw new DomainError(
    "rate_limited",
    `${sentence} (limit ${result.limit} a minute${counted}); try again shortly.`,
    rateLimitHeaders(result, Date.now()),
  );
}

/** Who signs a request, as a read budget knows them: a person's session or an API key. */
export type Credential = { kind: "session"; userId: string } | { kind: "api_key"; apiKeyId: string };

/**
 * A read that costs the service work: its budgets a minute per credential and per client network
 * (in reads, or in what the caller weighs a read as), and its name in the 429's sentence.
 */
export type ReadBudget = { name: string; perCredential: number; perNetwork: number; reads: string };

/**
 * Spends `cost` reads (one unless said: a read that costs more work counts as several) from the
 * credential's budget and the client network's (the write-limit machinery: shared through Redis
 * or Upstash when configured), so neither one token nor many tokens from one network can keep the
 * service drawing or streaming.
 */
export async function enforceReadBudget(
  budget: ReadBudget,
  credential: Credential,
  clientNetwork: string,
  cost = 1,
): Promise<void> {
  const signer = credential.kind === "api_key" ? `key:${credential.apiKeyId}` : `user:${credential.userId}`;
  await enforceLimit(
    limiterFor(`permalink:rate-limit:${budget.name}-credential`, budget.perCredential),
    signer,
    `Too many ${budget.reads} this minute with this credential`,
    cost,
  );
  await enforceLimit(
    limiterFor(`permalink:rate-limit:${budget.name}-network`, budget.perNetwork),
    clientNetwork,
    `Too many ${budget.reads} this minute from your network`,
    cost,
  );
}

function writeLimiter(): ClosableWriteLimiter {
  return limiterFor(WRITE_LIMIT_PREFIX, config().WRITE_RATE_LIMIT_PER_MINUTE);
}
