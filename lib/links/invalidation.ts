import { EventEmitter } from "node:events";
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { config } from "@/lib/config";
import { processSingleton } from "@/lib/process-singleton";

/** A link whose cached copy must be dropped, a custom domain verified or removed, or everything (messages may have been missed). */
export type Invalidation =
  { kind: "link"; host: string | null; slug: string } | { kind: "domain"; hostname: string } | { kind: "everything" };

const CHANNEL = "permalink:invalidations";
type Bus = { local: EventEmitter; instanceId: string; publisher: Redis | null };

/** One bus per process, so both doors (which may be separate bundles) hear every change. */
const processBus = processSingleton("invalidationBus", (): Bus => {
  const created: Bus = { local: new EventEmitter(), instanceId: randomUUID(), publisher: null };
  const redisUrl = config().REDIS_URL;
  if (redisUrl) connectRedis(created, redisUrl);
  return created;
});

function bus(): Bus {
  return processBus.get();
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

/** An invalidation another process of this instance heard (npm start's application process): dropped here only. */
export function deliverInvalidation(invalidation: Invalidation): void {
  bus().local.emit("invalidate", invalidation);
}

/** Listens for invalidations; returns the function that stops listening. */
export function onInvalidation(listener: (invalidation: Invalidation) => void): () => void {
  const { local } = bus();
  local.on("invalidate", listener);
  return () => local.off("invalidate", listener);
}
