import { EventEmitter } from "node:events";
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { config } from "@/lib/config";

/** A link whose cached copy must be dropped, or every custom domain (domain list changed). */
export type Invalidation = { kind: "link"; host: string | null; slug: string } | { kind: "domains" };

const CHANNEL = "permalink:invalidations";
const BUS_KEY = Symbol.for("permalink.invalidationBus");

type Bus = { local: EventEmitter; instanceId: string; publisher: Redis | null };
const holder = globalThis as unknown as { [BUS_KEY]?: Bus };

/** One bus per process, so both doors (which may be separate bundles) hear every change. */
function bus(): Bus {
  if (holder[BUS_KEY]) return holder[BUS_KEY];
  const created: Bus = { local: new EventEmitter(), instanceId: randomUUID(), publisher: null };
  created.local.setMaxListeners(50);
  holder[BUS_KEY] = created;
  const redisUrl = config().REDIS_URL;
  if (redisUrl) connectRedis(created, redisUrl);
  return created;
}

function connectRedis(target: Bus, redisUrl: string): void {
  const options = { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: true };
  target.publisher = new Redis(redisUrl, options);
  const subscriber = new Redis(redisUrl, options);
  for (const connection of [target.publisher, subscriber]) {
    connection.on("error", () => undefined);
  }
  void subscriber.subscribe(CHANNEL);
  subscriber.on("message", (_channel, raw: string) => {
    const message = JSON.parse(raw) as { from: string; invalidation: Invalidation };
    if (message.from !== target.instanceId) target.local.emit("invalidate", message.invalidation);
  });
}

/** Drops the cached copy here at once and tells every other instance through Redis. */
export function publishInvalidation(invalidation: Invalidation): void {
  const current = bus();
  current.local.emit("invalidate", invalidation);
  current.publisher?.publish(CHANNEL, JSON.stringify({ from: current.instanceId, invalidation })).catch(() => undefined);
}

export function onInvalidation(listener: (invalidation: Invalidation) => void): void {
  bus().local.on("invalidate", listener);
}
