import { describe, expect, it } from "vitest";
import type { SafetyChecker, Verdict } from "./verdict";
import { withVerdictCache } from "./verdict-cache";

/** A checker that answers what it is told and counts how often it really ran. */
function scriptedChecker(verdicts: Verdict[]) {
  let runs = 0;
  const checker: SafetyChecker = {
    name: "scripted",
    async check() {
      runs++;
      const verdict = verdicts[Math.min(runs - 1, verdicts.length - 1)]!;
      await new Promise((resolve) => setImmediate(resolve));
      return verdict;
    },
  };
  return { checker, runs: () => runs };
}

const clean: Verdict = { status: "clean", source: "scripted" };
const unknown: Verdict = { status: "unknown", source: "scripted", reason: "timeout" };

describe("withVerdictCache", () => {
  it("reuses a decided verdict until its time is up, then checks again", async () => {
    let now = 0;
    const scripted = scriptedChecker([clean]);
    const cached = withVerdictCache(scripted.checker, 60_000, { now: () => now });
    await cached.check("https://example.com/");
    now = 59_999;
    await cached.check("https://example.com/");
    expect(scripted.runs()).toBe(1);
    now = 60_000;
    await cached.check("https://example.com/");
    expect(scripted.runs()).toBe(2);
  });

  it("never keeps an unknown verdict: an outage is retried on the next visit", async () => {
    const scripted = scriptedChecker([unknown, clean]);
    const cached = withVerdictCache(scripted.checker, 60_000, { now: () => 0 });
    expect(await cached.check("https://example.com/")).toEqual(unknown);
    expect(await cached.check("https://example.com/")).toEqual(clean);
    expect(scripted.runs()).toBe(2);
  });

  it("lets concurrent checks of one URL share one run", async () => {
    const scripted = scriptedChecker([clean]);
    const cached = withVerdictCache(scripted.checker, 0, { now: () => 0 });
    const verdicts = await Promise.all(Array.from({ length: 10 }, () => cached.check("https://example.com/")));
    expect(verdicts.every((verdict) => verdict.status === "clean")).toBe(true);
    expect(scripted.runs()).toBe(1);
  });
});
