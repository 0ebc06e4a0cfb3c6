import { describe, expect, it } from "vitest";
import { addMonths, cycleContaining } from "./cycles";

const at = (iso: string) => new Date(iso);

describe("cycleContaining", () => {
  it("is the first cycle until one interval has passed, then the next", () => {
    const anchor = at("2026-03-10T08:00:00Z");
    expect(cycleContaining(anchor, "month", at("2026-03-10T08:00:00Z"))).toEqual({
      start: anchor,
      end: at("2026-04-10T08:00:00Z"),
    });
    expect(cycleContaining(anchor, "month", at("2026-04-10T07:59:59.999Z")).start).toEqual(anchor);
    expect(cycleContaining(anchor, "month", at("2026-04-10T08:00:00Z"))).toEqual({
      start: at("2026-04-10T08:00:00Z"),
      end: at("2026-05-10T08:00:00Z"),
    });
  });

  it("keeps rolling for years without any event", () => {
    const anchor = at("2026-01-15T00:00:00Z");
    expect(cycleContaining(anchor, "month", at("2029-07-20T12:00:00Z"))).toEqual({
      start: at("2029-07-15T00:00:00Z"),
      end: at("2029-08-15T00:00:00Z"),
    });
    expect(cycleContaining(anchor, "year", at("2029-07-20T12:00:00Z"))).toEqual({
      start: at("2029-01-15T00:00:00Z"),
      end: at("2030-01-15T00:00:00Z"),
    });
  });

  it("puts an anchor on the 31st on the last day of shorter months, and back on the 31st after", () => {
    const anchor = at("2026-01-31T10:00:00Z");
    expect(cycleContaining(anchor, "month", at("2026-02-15T00:00:00Z"))).toEqual({
      start: anchor,
      end: at("2026-02-28T10:00:00Z"),
    });
    expect(cycleContaining(anchor, "month", at("2026-03-01T00:00:00Z"))).toEqual({
      start: at("2026-02-28T10:00:00Z"),
      end: at("2026-03-31T10:00:00Z"),
    });
    expect(addMonths(at("2028-02-29T00:00:00Z"), 12)).toEqual(at("2029-02-28T00:00:00Z"));
  });

  it("treats a moment before the anchor as inside the first cycle", () => {
    const anchor = at("2026-06-01T00:00:00Z");
    expect(cycleContaining(anchor, "month", at("2026-05-31T23:00:00Z"))).toEqual({
      start: anchor,
      end: at("2026-07-01T00:00:00Z"),
    });
  });
});
