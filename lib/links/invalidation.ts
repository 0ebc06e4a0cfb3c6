import { EventEmitter } from "node:events";
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { config } from "@/lib/config";

/** A link whose cached copy must be dropped, or everything (messages may have been missed). */
export type Invalidation = { kind: "link"; host: string | null; slug: string } | { kind: "everything" };

const CHANNEL = "permalink:invalidations";
const BUS_KEY = Symbol.for("permalink.invalidationBus");

type Bus = { local: EventEmitter; instanceId: string; publisher: Redis | null };
const holder = globalThis as unknown as { [BUS_KEY]?: Bus };

/** One bus per process, so both doors (which may be separate bundles) hear every change. */
function bus(): Bus {
  if (holder[BUS_KEY]) return holder[BUS_KEY];
  const created: Bus = { local: new EventEmitter(), instanceId: randomUUID(), publisher: null };
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
  let connectedBefore = false;
  subscriber.on("ready", () => {
    // Invalidations published while this instance was disconnected are lost: forget everything.
    if (connectedBefore) target.local.emit("invalidate", { kind: "everything" } satisfies Invalidation);
    connectedBefore = true;
  });
  subscriber.on("message", (_channel, raw: string) => {
    const message = parseMessage(raw);
    if (message && message.from !== target.instanceId) target.local.emit("invalidate", message.invalidation);
  });
}

function parseMessage(raw: string): { from: string; invalidation: Invalidation } | null {
  try {
    return JSON.parse(raw) as { from: string; invalidation: Invalidation };
  } catch {
    return null;
  }
}

/** Drops the cached copy here at once and tells every other instance through Redis. */
export function publishInvalidation(invalidation: Invalidation): void {
  const current = bus();
  current.local.emit("invalidate", invalidation);
  current.publisher?.publish(CHANNEL, JSON.stringify({ from: current.instanceId, invalidation })).catch(() => undefined);
}

/** Listens for invalidations; returns the function that stops listening. */
export function onInvalidation(listener: (invalidation: Invalidation) => void): () => void {
  const { local } = bus();
  local.on("invalidate", listener);
  return () => local.off("invalidate", listener);
}
