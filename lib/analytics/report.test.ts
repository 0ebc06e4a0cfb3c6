import { describe, expect, it } from "vitest";
import { coveringSlices } from "./store/reads";
import { DAY, MONTH, QUARTER } from "./store/rollups";

const at = (iso: string) => new Date(iso);
/** Every day of these ranges closed. */
const CLOSED_LONG_AGO = at("9999-01-01T00:00:00Z");
const described = (start: string, end: string, closedBefore = CLOSED_LONG_AGO) =>
  coveringSlices(at(start), at(end), closedBefore).map((slice) => [
    slice.grain,
    slice.from.toISOString(),
    slice.to.toISOString(),
  ]);

describe("coveringSlices", () => {
  it("reads a year in Adelaide as quarter hours to the first UTC midnight, days to the first month, months, days, quarter hours", () => {
    // 24 November 2025 to 23 November 2026 in Adelaide (UTC+10:30 both ends).
    expect(described("2025-11-23T13:30:00Z", "2026-11-23T13:30:00Z")).toEqual([
      [QUARTER, "2025-11-23T13:30:00.000Z", "2025-11-24T00:00:00.000Z"],
      [DAY, "2025-11-24T00:00:00.000Z", "2025-12-01T00:00:00.000Z"],
      [MONTH, "2025-12-01T00:00:00.000Z", "2026-11-01T00:00:00.000Z"],
      [DAY, "2026-11-01T00:00:00.000Z", "2026-11-23T00:00:00.000Z"],
      [QUARTER, "2026-11-23T00:00:00.000Z", "2026-11-23T13:30:00.000Z"],
    ]);
  });

  it("leaves out empty slices: a range of whole UTC months is its month rows", () => {
    expect(described("2026-01-01T00:00:00Z", "2026-03-01T00:00:00Z")).toEqual([
      [MONTH, "2026-01-01T00:00:00.000Z", "2026-03-01T00:00:00.000Z"],
    ]);
  });

  it("uses days alone when no whole month fits, and quarter hours alone within a UTC day", () => {
    expect(described("2026-01-30T18:15:00Z", "2026-02-03T00:00:00Z")).toEqual([
      [QUARTER, "2026-01-30T18:15:00.000Z", "2026-01-31T00:00:00.000Z"],
      [DAY, "2026-01-31T00:00:00.000Z", "2026-02-03T00:00:00.000Z"],
    ]);
    expect(described("2026-02-10T05:45:00Z", "2026-02-10T19:00:00Z")).toEqual([
      [QUARTER, "2026-02-10T05:45:00.000Z", "2026-02-10T19:00:00.000Z"],
    ]);
  });

  it("reads the days not closed yet from quarter hours, whatever grain would cover them once closed", () => {
    expect(described("2025-11-23T13:30:00Z", "2026-11-23T13:30:00Z", at("2026-11-20T00:00:00Z"))).toEqual([
      [QUARTER, "2025-11-23T13:30:00.000Z", "2025-11-24T00:00:00.000Z"],
      [DAY, "2025-11-24T00:00:00.000Z", "2025-12-01T00:00:00.000Z"],
      [MONTH, "2025-12-01T00:00:00.000Z", "2026-11-01T00:00:00.000Z"],
      [DAY, "2026-11-01T00:00:00.000Z", "2026-11-20T00:00:00.000Z"],
      [QUARTER, "2026-11-20T00:00:00.000Z", "2026-11-23T13:30:00.000Z"],
    ]);
    // A month is read from its month row only once its last day is closed.
    expect(described("2026-01-01T00:00:00Z", "2026-03-01T00:00:00Z", at("2026-02-28T00:00:00Z"))).toEqual([
      [MONTH, "2026-01-01T00:00:00.000Z", "2026-02-01T00:00:00.000Z"],
      [DAY, "2026-02-01T00:00:00.000Z", "2026-02-28T00:00:00.000Z"],
      [QUARTER, "2026-02-28T00:00:00.000Z", "2026-03-01T00:00:00.000Z"],
    ]);
    expect(described("2026-02-10T05:45:00Z", "2026-02-12T19:00:00Z", at("2026-01-01T00:00:00Z"))).toEqual([
      [QUARTER, "2026-02-10T05:45:00.000Z", "2026-02-12T19:00:00.000Z"],
    ]);
  });
});
