import { config } from "@/lib/config";
import { processSingleton } from "@/lib/process-singleton";
import { upstashClient } from "@/lib/shared-store/clients";
import { Redis } from "ioredis";
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import { type ChangeFeed, createChangeFeed } from "./change-feed";

/** A link whose cached copy must be dropped, a custom domain verified or removed, or everything (messages may have been missed). */
export type Invalidation =
  { kind: "link"; host: string | null; slug: string } | { kind: "domain"; hostname: string } | { kind: "everything" };

const CHANNEL = "permalink:invalidations";
type Bus = {
  local: EventEmitter;
  instanceId: string;
  publisher: Redis | null;
  feed: ChangeFeed<Invalidation> | null;
  /** Appends to the feed not yet answered. */
  sending: Set<Promise<void>>;
};

/**
 * One bus per process, so both doors (which may be separate bundles) hear every change. Other
 * instances hear it through Redis: pub/sub over TCP (REDIS_URL) at once, or, with only Upstash's
 * REST API (which has no subscriber), a change feed each instance reads before trusting its memory.
 */
const processBus = processSingleton("invalidationBus", (): Bus => {
  const created: Bus = { local: new EventEmitter(), instanceId: randomUUID(), publisher: null, feed: null, sending: new Set() };
  const redisUrl = config().REDIS_URL;
  const upstash = upstashClient();
  if (redisUrl) connectRedis(created, redisUrl);
  else if (upstash) {
    created.feed = createChangeFeed<Invalidation>({
      redis: upstash,
      instanceId: created.instanceId,
      deliver: (invalidation) => created.local.emit("invalidate", invalidation),
      forgetEverything: () => created.local.emit("invalidate", { kind: "everything" } satisfies Invalidation),
    });
  }
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
  if (current.feed) {
    const sent = current.feed.append(invalidation).finally(() => current.sending.delete(sent));
    current.sending.add(sent);
  }
}

/**
 * Resolves once every change published so far has reached the feed (at once without one): a
 * request that changed something awaits it before answering, because a serverless instance may
 * be frozen as soon as it has answered.
 */
export function invalidationsSent(): Promise<void> | undefined {
  const { sending } = bus();
  return sending.size === 0 ? undefined : Promise.all(sending).then(() => undefined);
}

/**
 * Whether this instance may answer from memory: it has heard every other instance's changes up to
 * a moment ago (always true with pub/sub, or with no shared store, where there is nothing to hear).
 */
export function invalidationsHeard(): boolean {
  const { feed } = bus();
  return feed === null || feed.heardRecently(Date.now());
}

/** Reads the changes other instances made since this one last read them (with the change feed only); never rejects. */
export async function hearInvalidations(): Promise<void> {
  await bus().feed?.hear();
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
