import { SafeToLogError, sharedStoreAnswered, sharedStoreFailed } from "@/lib/shared-store/status";
import type { Redis as UpstashRedis } from "@upstash/redis";

/**
 * Changes every instance must hear, kept in a Redis stream: Upstash's REST API has no subscriber,
 * so each instance reads what others appended since its last read, before it trusts its memory
 * again. Stream IDs are Redis's own milliseconds, so "since" needs no agreement between clocks.
 */
export const LINK_CHANGES_STREAM = "permalink:link-changes";

/** An instance answers from memory for at most this long without reading the stream: the bound on a change's delay. */
export const HEAR_INTERVAL_MS = 2_000;
/** Entries older than this are trimmed when the next is appended. */
const RETENTION_MS = 60 * 60_000;
/** An instance that has not read for this long may have missed trimmed entries: it forgets everything instead. */
const FORGET_AFTER_MS = 10 * 60_000;
/** More changes than this in one read: forgetting everything is cheaper than applying them one by one. */
const MAX_ENTRIES_PER_READ = 1_000;
/** A read of the stream on the way to an answer waits at most this long; a visit is never held longer. */
const READ_DEADLINE_MS = 500;
/** On first read, changes from this long before are read again: harmless, and no append in flight is missed. */
const FIRST_READ_OVERLAP_MS = 1_000;

export type FeedMessage<Change> = { from: string; change: Change };

export type ChangeFeed<Change> = {
  /** Appends a change for every other instance; never rejects (a failure is reported as the store's). */
  append(change: Change): Promise<void>;
  /** Whether this instance read the stream less than HEAR_INTERVAL_MS ago (or is reading it now, having read it just before). */
  heardRecently(now: number): boolean;
  /** Reads what other instances appended since the last read; one read at a time, never rejects. */
  hear(): Promise<void>;
};

export type ChangeFeedOptions<Change> = {
  redis: UpstashRedis;
  instanceId: string;
  /** A change another instance appended. */
  deliver(change: Change): void;
  /** Too much happened to apply it entry by entry (or since this instance last read): drop everything cached. */
  forgetEverything(): void;
  now?: () => number;
};

export function createChangeFeed<Change>(options: ChangeFeedOptions<Change>): ChangeFeed<Change> {
  const { redis, instanceId, deliver, forgetEverything, now = Date.now } = options;
  let cursor: string | undefined;
  let lastReadStartedAt = Number.NEGATIVE_INFINITY;
  let lastReadSucceededAt = Number.NEGATIVE_INFINITY;
  let reading: Promise<void> | undefined;

  async function append(change: Change): Promise<void> {
    const message: FeedMessage<Change> = { from: instanceId, change };
    try {
      await redis.xadd(
        LINK_CHANGES_STREAM,
        "*",
        { change: JSON.stringify(message) },
        { trim: { type: "MINID", comparison: "~", threshold: `${now() - RETENTION_MS}-0` } },
      );
      sharedStoreAnswered("upstash");
    } catch (error) {
      sharedStoreFailed("upstash", error);
    }
  }

  async function read(startedAt: number): Promise<void> {
    if (cursor === undefined || startedAt - lastReadSucceededAt > FORGET_AFTER_MS) {
      // Nothing cached yet can predate this read by more than the overlap: start from the stream's present.
      const [seconds, microseconds] = await withDeadline(redis.time());
      if (cursor !== undefined) forgetEverything();
      cursor = `${Number(seconds) * 1000 + Math.floor(Number(microseconds) / 1000) - FIRST_READ_OVERLAP_MS}-0`;
    }
    const entries = streamEntries(await withDeadline(redis.xread(LINK_CHANGES_STREAM, cursor, { count: MAX_ENTRIES_PER_READ })));
    if (entries.length === MAX_ENTRIES_PER_READ) forgetEverything();
    else for (const [, fields] of entries) deliverEntry(fields);
    cursor = entries.at(-1)?.[0] ?? cursor;
    lastReadSucceededAt = startedAt;
  }

  function deliverEntry(fields: string[]): void {
    const message = parseMessage<Change>(fields[fields.indexOf("change") + 1]);
    if (message && message.from !== instanceId) deliver(message.change);
  }

  function hear(): Promise<void> {
    reading ??= (async () => {
      const startedAt = now();
      try {
        await read(startedAt);
        sharedStoreAnswered("upstash");
      } catch (error) {
        sharedStoreFailed("upstash", error);
      } finally {
        // Failed or not, the next read waits for the interval: a failing store must not hold every visit.
        lastReadStartedAt = startedAt;
        reading = undefined;
      }
    })();
    return reading;
  }

  return { append, hear, heardRecently: (at) => at - lastReadStartedAt < HEAR_INTERVAL_MS };
}

type StreamEntry = [id: string, fields: string[]];

/** XREAD's reply, [[stream, [[id, [field, value, …]], …]]], or null when nothing is new. */
function streamEntries(reply: unknown): StreamEntry[] {
  if (!Array.isArray(reply) || reply.length === 0) return [];
  const [, entries] = reply[0] as [string, StreamEntry[]];
  return entries ?? [];
}

function parseMessage<Change>(raw: string | undefined): FeedMessage<Change> | null {
  if (raw === undefined) return null;
  try {
    return JSON.parse(raw) as FeedMessage<Change>;
  } catch {
    return null;
  }
}

class FeedTimeout extends SafeToLogError {
  override name = "FeedTimeout";
}

function withDeadline<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new FeedTimeout(`no answer within ${READ_DEADLINE_MS} ms`)), READ_DEADLINE_MS);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
