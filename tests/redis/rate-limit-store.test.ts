import { type ClosableWriteLimiter, createWriteLimiter } from "@/lib/http/rate-limit";
import { log } from "@/lib/log";
import { forgetSharedStoreFailures } from "@/lib/shared-store/status";
import { Redis as Ioredis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { LOCAL_REDIS_URL, uniquePrefix, unusedLocalPort, waitUntilClearOfWindowBoundary } from "../support/redis";
import { type UpstashStandIn, startUpstashStandIn } from "../support/upstash-stand-in";

const inspector = new Ioredis(LOCAL_REDIS_URL);
const openLimiters: ClosableWriteLimiter[] = [];

function limiterFor(options: Parameters<typeof createWriteLimiter>[0]): ClosableWriteLimiter {
  const limiter = createWriteLimiter(options);
  openLimiters.push(limiter);
  return limiter;
}

async function successCount(results: Promise<{ success: boolean }>[]): Promise<number> {
  return (await Promise.all(results)).filter((result) => result.success).length;
}

let warn: ReturnType<typeof vi.spyOn>;

beforeEach(async () => {
  warn = vi.spyOn(log(), "warn").mockImplementation(() => {});
  await waitUntilClearOfWindowBoundary();
});

afterEach(async () => {
  warn.mockRestore();
  forgetSharedStoreFailures();
  await Promise.all(openLimiters.splice(0).map((limiter) => limiter.close()));
});

afterAll(() => inspector.quit());

describe("write limiter on a local Redis", () => {
  it("allows perMinute writes and refuses the next one, counting in Redis", async () => {
    const prefix = uniquePrefix();
    const limiter = limiterFor({ perMinute: 3, prefix, redisUrl: LOCAL_REDIS_URL });

    const results = [];
    for (let call = 0; call < 4; call++) results.push(await limiter.limit("ws_1"));

    expect(results.map((result) => [result.success, result.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(results[3]).toMatchObject({ limit: 3 });
    expect(results[3]!.resetAt).toBeGreaterThan(Date.now());
    expect(results[3]!.resetAt).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(await inspector.keys(`${prefix}:ws_1:*`)).toHaveLength(1);
    expect(warn).not.toHaveBeenCalled();
  });

  it("spends a request's cost in Redis, and refuses one that does not fit what is left", async () => {
    const limiter = limiterFor({ perMinute: 10, prefix: uniquePrefix(), redisUrl: LOCAL_REDIS_URL });

    const results = [];
    for (const cost of [4, 4, 4, 1]) results.push(await limiter.limit("key_1", cost));

    expect(results.map((result) => result.success)).toEqual([true, true, false, false]);
    expect(results[1]).toMatchObject({ remaining: 2 });
    expect(warn).not.toHaveBeenCalled();
  });

  it("lets exactly perMinute of 2×perMinute parallel writes through", async () => {
    const limiter = limiterFor({ perMinute: 10, prefix: uniquePrefix(), redisUrl: LOCAL_REDIS_URL });

    const allowed = await successCount(Array.from({ length: 20 }, () => limiter.limit("ws_1")));

    expect(allowed).toBe(10);
    expect(warn).not.toHaveBeenCalled();
  });

  it("shares one budget between app instances using the same Redis", async () => {
    const prefix = uniquePrefix();
    const instanceA = limiterFor({ perMinute: 4, prefix, redisUrl: LOCAL_REDIS_URL });
    const instanceB = limiterFor({ perMinute: 4, prefix, redisUrl: LOCAL_REDIS_URL });

    const allowed = await successCount(
      [instanceA, instanceB, instanceA, instanceB, instanceA, instanceB].map((instance) => instance.limit("key_1")),
    );

    expect(allowed).toBe(4);
    expect(await instanceB.limit("key_1")).toMatchObject({ success: false, remaining: 0 });
    expect(warn).not.toHaveBeenCalled();
  });

  it("falls back to memory, quickly and still limiting, when Redis is down; logs no secret", async () => {
    const redisUrl = `redis://:s3cret-password@127.0.0.1:${await unusedLocalPort()}`;
    const limiter = limiterFor({ perMinute: 2, prefix: uniquePrefix(), redisUrl });

    const startedAt = Date.now();
    const results = [];
    for (let call = 0; call < 3; call++) results.push(await limiter.limit("ws_1"));

    expect(results.map((result) => result.success)).toEqual([true, true, false]);
    expect(Date.now() - startedAt).toBeLessThan(3 * 1_000);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(JSON.stringify(warn.mock.calls[0])).not.toMatch(/s3cret|127\.0\.0\.1/);
  });
});

describe("write limiter on Upstash", () => {
  it("falls back to memory when Upstash is unreachable; logs no secret", async () => {
    const upstash = { url: `http://127.0.0.1:${await unusedLocalPort()}`, token: "s3cret-token" };
    const limiter = limiterFor({ perMinute: 1, prefix: uniquePrefix(), upstash });

    const results = [await limiter.limit("ws_1"), await limiter.limit("ws_1")];

    expect(results.map((result) => result.success)).toEqual([true, false]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(JSON.stringify(warn.mock.calls[0])).not.toMatch(/s3cret|127\.0\.0\.1/);
  });
});

describe("write limiter on Upstash's REST API (a stand-in speaking its wire format in front of the local Redis)", () => {
  let upstash: UpstashStandIn;
  const settings = () => ({ url: upstash.url, token: upstash.token });

  beforeAll(async () => {
    upstash = await startUpstashStandIn();
  });

  afterAll(() => upstash.close());

  it("allows perMinute writes and refuses the next one, counting in Upstash", async () => {
    const prefix = uniquePrefix();
    const limiter = limiterFor({ perMinute: 3, prefix, upstash: settings() });

    const results = [];
    for (let call = 0; call < 4; call++) results.push(await limiter.limit("ws_1"));

    expect(results.map((result) => [result.success, result.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(await upstash.redis.keys(`${prefix}:ws_1:*`)).toHaveLength(1);
    expect(upstash.commands).toContain("evalsha");
    expect(warn).not.toHaveBeenCalled();
  });

  it("shares one budget between app instances, exactly, under parallel calls", async () => {
    const prefix = uniquePrefix();
    const instanceA = limiterFor({ perMinute: 6, prefix, upstash: settings() });
    const instanceB = limiterFor({ perMinute: 6, prefix, upstash: settings() });

    const allowed = await successCount(Array.from({ length: 16 }, (_, i) => (i % 2 ? instanceA : instanceB).limit("key_1")));

    expect(allowed).toBe(6);
    expect(await instanceA.limit("key_1")).toMatchObject({ success: false, remaining: 0 });
    expect(warn).not.toHaveBeenCalled();
  });

  it("logs a failing store once per failure spell, with Upstash's reason and no secret, and its end", async () => {
    const limiter = limiterFor({ perMinute: 2, prefix: uniquePrefix(), upstash: settings() });
    const accepted = upstash.token;

    upstash.rotateToken();
    const duringSpell = [];
    for (let call = 0; call < 3; call++) duringSpell.push((await limiter.limit("ws_1")).success);
    expect(duringSpell).toEqual([true, true, false]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toEqual({
      store: "upstash",
      reason: "WRONGPASS invalid or missing auth token",
      meanwhile: expect.stringContaining("each instance limits writes in its own memory"),
    });
    expect(JSON.stringify(warn.mock.calls)).not.toContain(accepted);

    upstash.rotateToken(accepted);
    expect((await limiter.limit("ws_2")).success).toBe(true);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn.mock.calls[1]![1]).toBe("the shared store answers again");

    upstash.rotateToken();
    await limiter.limit("ws_3");
    expect(warn).toHaveBeenCalledTimes(3);
    upstash.rotateToken(accepted);
    await limiter.limit("ws_3");
  });
});
