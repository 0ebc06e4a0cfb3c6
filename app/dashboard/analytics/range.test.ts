import { describe, expect, it } from "vitest";
import { rangeFor } from "./range";

const NOW = new Date("2026-11-23T17:00:00Z");

describe("the analytics page's range picker", () => {
  // ?range= comes from the address bar: a name every object has (toString, constructor…) once
  // counted as a preset, and the page failed with a RangeError (a 500) instead of showing 30 days.
  it.each(["toString", "constructor", "__proto__", "hasOwnProperty", "valueOf"])(
    "treats ?range=%s as no preset: the last 30 days",
    (preset) => {
      expect(rangeFor(preset, {}, "UTC", NOW)).toEqual({ preset: "30d", start: "2026-10-25", end: "2026-11-23", groupBy: "day" });
    },
  );

  it("keeps the presets it knows, cut in the viewer's zone (a half-hour offset)", () => {
    expect(rangeFor("7d", {}, "Asia/Kolkata", new Date("2026-11-23T19:00:00Z"))).toEqual({
      preset: "7d",
      start: "2026-11-18",
      end: "2026-11-24",
      groupBy: "day",
    });
  });
});
