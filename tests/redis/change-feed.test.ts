import { type ChangeFeed, createChangeFeed, HEAR_INTERVAL_MS, LINK_CHANGES_STREAM } from "@/lib/links/change-feed";
import { log } from "@/lib/log";
import { forgetSharedStoreFailures } from "@/lib/shared-store/status";
import { Redis as UpstashRedis } from "@upstash/redis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type UpstashStandIn, startUpstashStandIn } from "../support/upstash-stand-in";

type Change = { slug: string };
type Instance = { feed: ChangeFeed<Change>; heard: Change[]; forgotten: number };

let upstash: UpstashStandIn;
let now = Date.now();

/** One app instance's feed, on its own client, with the test's clock. */
function instance(token = upstash.token): Instance {
  const redis = new UpstashRedis({ url: upstash.url, token, retry: false, automaticDeserialization: false });
  const created: Instance = { heard: [], forgotten: 0 } as unknown as Instance;
  created.feed = createChangeFeed<Change>({
    redis,
    instanceId: Math.random().toString(36),
    deliver: (change) => created.heard.push(change),
    forgetEverything: () => created.forgotten++,
    now: () => now,
  });
  return created;
}

beforeAll(async () => {
  upstash = await startUpstashStandIn();
});

afterEach(async () => {
  vi.restoreAllMocks();
  forgetSharedStoreFailures();
  await upstash.redis.del(LINK_CHANGES_STREAM);
});

afterAll(() => upstash.close());

describe("the link change feed on Upstash's REST API", () => {
  it("delivers each change to every other instance on its next read, and not back to its author", async () => {
    const [author, other] = [instance(), instance()];
    await Promise.all([author.feed.hear(), other.feed.hear()]);

    await author.feed.append({ slug: "one" });
    await author.feed.append({ slug: "two" });
    await Promise.all([author.feed.hear(), other.feed.hear()]);
    await other.feed.hear();

    expect(other.heard).toEqual([{ slug: "one" }, { slug: "two" }]);
    expect(author.heard).toEqual([]);
    expect(other.forgotten).toBe(0);
  });

  it("asks to be read again once HEAR_INTERVAL_MS has passed since the last read began", async () => {
    const reader = instance();
    expect(reader.feed.heardRecently(now)).toBe(false);
    await reader.feed.hear();
    expect(reader.feed.heardRecently(now + HEAR_INTERVAL_MS - 1)).toBe(true);
    expect(reader.feed.heardRecently(now + HEAR_INTERVAL_MS)).toBe(false);
  });

  it("reads once for any number of visits waiting at the same time", async () => {
    const reader = instance();
    await reader.feed.hear();
    const before = upstash.commands.length;
    now += HEAR_INTERVAL_MS;
    await Promise.all(Array.from({ length: 20 }, () => reader.feed.hear()));
    expect(upstash.commands.slice(before)).toEqual(["xread"]);
  });

  it("forgets everything instead of applying a burst of more than a thousand changes", async () => {
    const [author, other] = [instance(), instance()];
    await other.feed.hear();
    await Promise.all(Array.from({ length: 1_000 }, (_, index) => author.feed.append({ slug: `s${index}` })));
    now += HEAR_INTERVAL_MS;
    await other.feed.hear();
    expect(other.forgotten).toBe(1);
    expect(other.heard).toEqual([]);
  });

  it("forgets everything when it has not read for ten minutes, since older entries may be trimmed", async () => {
    const [author, other] = [instance(), instance()];
    await other.feed.hear();
    await author.feed.append({ slug: "while-idle" });
    now += 10 * 60_000 + 1;
    await other.feed.hear();
    expect(other.forgotten).toBe(1);
  });

  it("never rejects when the store fails: reports it once, and waits the interval before asking again", async () => {
    const warn = vi.spyOn(log(), "warn").mockImplementation(() => {});
    const misconfigured = instance("not-the-token");

    await misconfigured.feed.hear();
    await misconfigured.feed.append({ slug: "lost" });

    expect(misconfigured.feed.heardRecently(now)).toBe(true);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatchObject({ store: "upstash", reason: "WRONGPASS invalid or missing auth token" });
  });
});
