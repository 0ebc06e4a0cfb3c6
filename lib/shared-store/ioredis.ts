import { Redis as Ioredis } from "ioredis";

const CONNECT_TIMEOUT_MS = 1_000;
const COMMAND_TIMEOUT_MS = 500;
const MAX_RECONNECT_DELAY_MS = 2_000;

/** An ioredis client that connects on first use and fails commands fast while Redis is unreachable. */
export function createFailFastIoredis(url: string): Ioredis {
  const redis = new Ioredis(url, {
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(attempt * 200, MAX_RECONNECT_DELAY_MS),
  });
  // Failures already reach callers through rejected commands; without a listener
  // ioredis would print every failed reconnect attempt.
  redis.on("error", () => {});
  return redis;
}
