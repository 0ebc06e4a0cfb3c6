import { describe, expect, it } from "vitest";
import { rateLimitHeaders } from "./headers";
import { createWriteLimiter } from "./index";
import { createMemoryLimiter } from "./memory";

const WINDOW_MS = 60_000;

function manualClock(start = 1_700_000_000_000) {
  let current = start;
  return {
    now: () => current,
    set: (epochMs: number) => void (current = epochMs),
    advance: (ms: number) => void (current += ms),
  };
}

describe("in-memory write limiter", () => {
  it("allows perMinute writes and refuses the next one", async () => {
    const clock = manualClock();
    const limiter = createWriteLimiter({ perMinute: 3, now: clock.now });

    const allowed = [await limiter.limit("ws_1"), await limiter.limit("ws_1"), await limiter.limit("ws_1")];
    const refused = await limiter.limit("ws_1");

    expect(allowed.map((result) => [result.success, result.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
    ]);
    expect(refused).toEqual({ success: false, limit: 3, remaining: 0, resetAt: clock.now() + WINDOW_MS });
  });

  it("spends a request's cost, refuses one that does not fit what is left, and says when it will", async () => {
    const clock = manualClock();
    const limiter = createWriteLimiter({ perMinute: 10, now: clock.now });

    expect(await limiter.limit("key_1", 4)).toMatchObject({ success: true, remaining: 6 });
    clock.advance(10_000);
    expect(await limiter.limit("key_1", 4)).toMatchObject({ success: true, remaining: 2 });
    // Six more need the first request's four to leave the window: at its start plus a minute.
    const refused = await limiter.limit("key_1", 6);
    expect(refused).toEqual({ success: false, limit: 10, remaining: 2, resetAt: clock.now() - 10_000 + WINDOW_MS });
    expect(await limiter.limit("key_1", 2)).toMatchObject({ success: true, remaining: 0 });
    // A cost above the whole budget spends the whole budget, once it is all there.
    clock.advance(WINDOW_MS);
    expect(await limiter.limit("key_1", 50)).toMatchObject({ success: true, remaining: 0 });
  });

  it("gives each principal its own budget", async () => {
    const limiter = createWriteLimiter({ perMinute: 1, now: manualClock().now });

    expect((await limiter.limit("ws_1")).success).toBe(true);
    expect((await limiter.limit("ws_1")).success).toBe(false);
    expect((await limiter.limit("key_2")).success).toBe(true);
  });

  it("returns exact headers for allowed and refused writes", async () => {
    const clock = manualClock();
    const limiter = createWriteLimiter({ perMinute: 2, now: clock.now });

    await limiter.limit("ws_1");
    clock.advance(26_000);
    const second = await limiter.limit("ws_1");
    const third = await limiter.limit("ws_1");

    expect(rateLimitHeaders(second, clock.now())).toEqual({
      "RateLimit-Policy": '"writes";q=2;w=60',
      RateLimit: '"writes";r=0;t=34',
    });
    expect(rateLimitHeaders(third, clock.now())).toEqual({
      "RateLimit-Policy": '"writes";q=2;w=60',
      RateLimit: '"writes";r=0;t=34',
      "Retry-After": "34",
    });
  });

  it("slides the window: each write frees its slot exactly one window later", async () => {
    const clock = manualClock(0);
    const limiter = createWriteLimiter({ perMinute: 3, now: clock.now });
    for (const at of [0, 10_000, 20_000]) {
      clock.set(at);
      expect((await limiter.limit("ws_1")).success).toBe(true);
    }

    clock.set(59_999);
    expect(await limiter.limit("ws_1")).toMatchObject({ success: false, resetAt: 60_000 });
    clock.set(60_000);
    expect(await limiter.limit("ws_1")).toMatchObject({ success: true, remaining: 0, resetAt: 70_000 });
    clock.set(60_001);
    expect((await limiter.limit("ws_1")).success).toBe(false);
    clock.set(70_000);
    expect((await limiter.limit("ws_1")).success).toBe(true);
    clock.set(150_000);
    expect(await limiter.limit("ws_1")).toMatchObject({ success: true, remaining: 2, resetAt: 210_000 });
  });

  it("forgets principals whose writes have all expired", async () => {
    const clock = manualClock(0);
    const limiter = createMemoryLimiter({ limit: 5, windowMs: WINDOW_MS, now: clock.now });
    await limiter.limit("ws_1");
    await limiter.limit("ws_2");
    expect(limiter.trackedPrincipals()).toBe(2);

    clock.set(WINDOW_MS);
    await limiter.limit("ws_3");

    expect(limiter.trackedPrincipals()).toBe(1);
  });

  it("tracks at most maxTrackedPrincipals, evicting the least recently used", async () => {
    const limiter = createMemoryLimiter({ limit: 1, windowMs: WINDOW_MS, now: manualClock().now, maxTrackedPrincipals: 2 });
    await limiter.limit("ws_1");
    await limiter.limit("ws_2");
    await limiter.limit("ws_3");

    expect(limiter.trackedPrincipals()).toBe(2);
    expect((await limiter.limit("ws_1")).success).toBe(true);
    expect((await limiter.limit("ws_3")).success).toBe(false);
  });
});
