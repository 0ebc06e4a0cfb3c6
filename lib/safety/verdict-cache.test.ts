import { afterEach, describe, expect, it, vi } from "vitest";
import type { SafetyChecker, Verdict } from "./verdict";
import { withVerdictCache, type VerdictCacheOptions } from "./verdict-cache";

/** A checker that answers what it is told (or never, for "hang") and counts how often it really ran. */
function scriptedChecker(verdicts: (Verdict | "hang")[]) {
  let runs = 0;
  const checker: SafetyChecker = {
    name: "scripted",
    async check() {
      runs++;
      const verdict = verdicts[Math.min(runs - 1, verdicts.length - 1)]!;
      if (verdict === "hang") return new Promise<Verdict>(() => undefined);
      await new Promise((resolve) => setImmediate(resolve));
      return verdict;
    },
  };
  return { checker, runs: () => runs };
}

const clean: Verdict = { status: "clean", source: "scripted" };
const unknown: Verdict = { status: "unknown", source: "scripted", reason: "timeout" };
const timedOut: Verdict = { status: "unknown", source: "scripted", reason: "timeout" };
const OPTIONS: VerdictCacheOptions = { decidedMs: 60_000, unknownMs: 5_000, deadlineMs: 250 };

afterEach(() => {
  vi.useRealTimers();
});

describe("withVerdictCache", () => {
  it("reuses a decided verdict until its time is up, then checks again", async () => {
    let now = 0;
    const scripted = scriptedChecker([clean]);
    const cached = withVerdictCache(scripted.checker, OPTIONS, { now: () => now });
    await cached.check("https://example.com/");
    now = 59_999;
    expect(cached.peek("https://example.com/")).toEqual(clean);
    await cached.check("https://example.com/");
    expect(scripted.runs()).toBe(1);
    now = 60_000;
    expect(cached.peek("https://example.com/"), "an expired decided verdict is checked again, and waited for").toBeUndefined();
    await cached.check("https://example.com/");
    expect(scripted.runs()).toBe(2);
  });

  it("remembers an unknown verdict briefly, then re-checks it once in the background while visits go on with it", async () => {
    let now = 0;
    const scripted = scriptedChecker([unknown, clean]);
    const cached = withVerdictCache(scripted.checker, OPTIONS, { now: () => now });
    expect(await cached.check("https://example.com/")).toEqual(unknown);
    now = 4_999;
    expect(await cached.check("https://example.com/")).toEqual(unknown);
    expect(scripted.runs()).toBe(1);
    now = 5_000;
    expect(cached.peek("https://example.com/"), "stale, but answered at once").toEqual(unknown);
    expect(cached.peek("https://example.com/")).toEqual(unknown);
    expect(scripted.runs(), "one re-check for many visits").toBe(2);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(cached.peek("https://example.com/")).toEqual(clean);
  });

  it("does not keep an unknown verdict when told to remember it for 0 s", async () => {
    const scripted = scriptedChecker([unknown, clean]);
    const cached = withVerdictCache(scripted.checker, { ...OPTIONS, unknownMs: 0 }, { now: () => 0 });
    expect(await cached.check("https://example.com/")).toEqual(unknown);
    expect(await cached.check("https://example.com/")).toEqual(clean);
  });

  it("lets concurrent checks of one URL share one run", async () => {
    const scripted = scriptedChecker([clean]);
    const cached = withVerdictCache(scripted.checker, { ...OPTIONS, decidedMs: 0 }, { now: () => 0 });
    const verdicts = await Promise.all(Array.from({ length: 10 }, () => cached.check("https://example.com/")));
    expect(verdicts.every((verdict) => verdict.status === "clean")).toBe(true);
    expect(scripted.runs()).toBe(1);
  });

  it("holds a visit no longer than the deadline from the check's start; later visits go on at once", async () => {
    vi.useFakeTimers();
    const scripted = scriptedChecker(["hang"]);
    const cached = withVerdictCache(scripted.checker, OPTIONS, { now: () => 0 });
    const first = cached.check("https://silent.example/");
    await vi.advanceTimersByTimeAsync(100);
    const second = cached.check("https://silent.example/");
    await vi.advanceTimersByTimeAsync(150);
    expect(await first).toEqual(timedOut);
    expect(await second, "waited only what was left of the first visit's deadline").toEqual(timedOut);
    const late = cached.check("https://silent.example/");
    await vi.advanceTimersByTimeAsync(0);
    expect(await late).toEqual(timedOut);
    expect(scripted.runs()).toBe(1);
  });
});
