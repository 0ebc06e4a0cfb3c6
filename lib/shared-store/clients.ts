import { config } from "@/lib/config";
import { processSingleton } from "@/lib/process-singleton";
import { Redis as UpstashRedis } from "@upstash/redis";
import type { Redis as Ioredis } from "ioredis";
import { createFailFastIoredis } from "./ioredis";
import { SafeToLogError, type SharedStoreKind } from "./status";

export type UpstashSettings = { url: string; token: string };

/** Upstash's REST endpoint and token when both are configured. */
export function upstashSettings(): UpstashSettings | undefined {
  const { UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: token } = config();
  return url && token ? { url, token } : undefined;
}

/** The store shared state is kept in: Upstash when configured (it is preferred), else Redis over TCP, else none. */
export function sharedStoreKind(): SharedStoreKind | undefined {
  if (upstashSettings()) return "upstash";
  return config().REDIS_URL ? "redis" : undefined;
}

/**
 * The process's client of Upstash's REST API (undefined when Upstash is not configured): one retry,
 * replies as Redis sent them (no guessing at JSON).
 */
export function upstashClient(): UpstashRedis | undefined {
  return processUpstash.get();
}

const processUpstash = processSingleton("upstashClient", (): UpstashRedis | undefined => {
  const settings = upstashSettings();
  return settings && new UpstashRedis({ ...settings, retry: { retries: 1, backoff: () => 50 }, automaticDeserialization: false });
});

const processIoredis = processSingleton("sharedIoredis", (): Ioredis | undefined => {
  const url = config().REDIS_URL;
  return url === undefined ? undefined : createFailFastIoredis(url);
});

/** Asks the configured shared store for PONG; rejects when it cannot answer within `deadlineMs`. */
export async function pingSharedStore(deadlineMs: number): Promise<void> {
  const ping = sharedStoreKind() === "upstash" ? upstashClient()!.ping() : processIoredis.get()!.ping();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SharedStoreTimeout(`no answer within ${deadlineMs} ms`)), deadlineMs);
  });
  await Promise.race([ping, deadline]).finally(() => clearTimeout(timer));
}

/** Tests only: forget the clients, so the next use builds them from the current configuration. */
export function forgetSharedStoreClients(): void {
  processUpstash.reset();
  processIoredis.reset()?.disconnect();
}

class SharedStoreTimeout extends SafeToLogError {
  override name = "SharedStoreTimeout";
}
