import { DomainError } from "@/lib/http/errors";
import { describe, expect, it } from "vitest";
import { contrastRatio, relativeLuminance, requireScannableColours } from "./contrast";

function refusal(fg: string, bg: string): DomainError | null {
  try {
    requireScannableColours(fg, bg);
    return null;
  } catch (error) {
    return error as DomainError;
  }
}

describe("colour contrast (WCAG 2)", () => {
  it("computes relative luminance and contrast ratio as WCAG defines them", () => {
    expect(relativeLuminance("#000000")).toBe(0);
    expect(relativeLuminance("#ffffff")).toBeCloseTo(1, 10);
    expect(contrastRatio("#000000", "#ffffff")).toBeCloseTo(21, 10);
    expect(contrastRatio("#ffffff", "#000000")).toBeCloseTo(21, 10);
    expect(contrastRatio("#777777", "#ffffff")).toBeCloseTo(4.48, 2);
    expect(contrastRatio("#123456", "#123456")).toBe(1);
  });

  it.each([
    ["#000000", "#ffffff"],
    ["#1b2a4a", "#fdf6e3"],
    ["#0b5d1e", "#e8f5e9"],
    ["#949494", "#ffffff"], // 3.03:1, just above the line
  ])("accepts %s on %s", (fg, bg) => {
    expect(refusal(fg, bg)).toBeNull();
  });

  it("refuses a foreground lighter than the background with 400 and a sentence", () => {
    const error = refusal("#ffffff", "#000000");
    expect(error?.code).toBe("invalid_request");
    expect(error?.message).toBe(
      "The foreground #ffffff is lighter than the background #000000; many scanners cannot read an " +
        "inverted code, so use a dark foreground on a light background.",
    );
  });

  it("refuses a contrast under 3:1, naming the ratio", () => {
    const error = refusal("#999999", "#ffffff");
    expect(error?.code).toBe("invalid_request");
    expect(error?.message).toMatch(/contrast ratio of 2\.85:1; a code needs at least 3:1/);
    expect(refusal("#336699", "#336699")?.message).toMatch(/1\.00:1/);
  });
});
