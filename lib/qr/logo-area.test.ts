import { describe, expect, it } from "vitest";
import { correctablePerBlock, ecBlocks, MAX_LOGO_SHARE_OF_SIDE, maxLogoModules, versionOf, worstBlockDamage } from "./logo-area";

describe("the logo's area bound", () => {
  it("reads the version from the modules per side", () => {
    expect(versionOf(21)).toBe(1);
    expect(versionOf(177)).toBe(40);
    expect(() => versionOf(22)).toThrow();
  });

  it("gives the sizes worked out by hand for small codes", () => {
    // Version 3, Q: 2 blocks of 18 EC codewords, 9 correctable each, 8 usable; a 5×5 square can touch 4
    // column pairs × 2 codewords per block + 1 = 9, too many.
    expect(correctablePerBlock(3, "Q")).toBe(9);
    expect(ecBlocks(3, "Q")).toBe(2);
    expect(worstBlockDamage(5, 2)).toBe(9);
    expect(worstBlockDamage(3, 2)).toBe(4);
    expect(maxLogoModules(29, "Q")).toBe(3);
    // Version 4, H: 4 blocks of 16, 8 correctable, 7 usable; 9×9 touches 6 pairs × 1 + 1 = 7.
    expect(ecBlocks(4, "H")).toBe(4);
    expect(worstBlockDamage(9, 4)).toBe(7);
    expect(worstBlockDamage(11, 4)).toBe(8);
    expect(maxLogoModules(33, "H")).toBe(9);
  });

  it.each(["Q", "H"] as const)(
    "never lets a logo at level %s damage more codewords of a block than it can correct, nor cover more than 30%% of the side",
    (level) => {
      for (let version = 1; version <= 40; version++) {
        const modules = 17 + 4 * version;
        const side = maxLogoModules(modules, level);
        expect(side % 2 === 1 || side === 0).toBe(true);
        expect(side).toBeLessThanOrEqual(modules * MAX_LOGO_SHARE_OF_SIDE);
        if (side > 0) {
          expect(worstBlockDamage(side, ecBlocks(version, level))).toBeLessThan(correctablePerBlock(version, level));
        }
      }
    },
  );
});
