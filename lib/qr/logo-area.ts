/**
 * How large a centre logo a QR code can carry. Modules under the logo are cleared, so every
 * codeword they belong to may read wrong; Reed–Solomon corrects up to half of each block's
 * error-correction codewords. The logo's square is the largest one whose worst-case damage, in
 * every block, stays within that, with one codeword per block kept spare for a smudge.
 */

/** Error-correction codewords per block, by version (index 1–40), for the levels a logo allows (ISO/IEC 18004 table 9). */
const EC_CODEWORDS_PER_BLOCK = {
  Q: [
    -1, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30, 30, 30, 30,
    30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
  ],
  H: [
    -1, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30, 30, 30, 30,
    30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
  ],
} as const;

/** Error-correction blocks, by version, for the same levels. */
const EC_BLOCKS = {
  Q: [
    -1, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48,
    51, 53, 56, 59, 62, 65, 68,
  ],
  H: [
    -1, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57,
    60, 63, 66, 70, 74, 77, 81,
  ],
} as const;

export type LogoLevel = keyof typeof EC_BLOCKS;

/** Beyond this share of the code's width a logo hides too much of the pattern for people to see a code. */
export const MAX_LOGO_SHARE_OF_SIDE = 0.3;

const SPARE_CODEWORDS_PER_BLOCK = 1;

export function versionOf(modules: number): number {
  const version = (modules - 17) / 4;
  if (!Number.isInteger(version) || version < 1 || version > 40) throw new Error(`${modules} modules is not a QR code size.`);
  return version;
}

/**
 * The most codewords of any one block that clearing a `side`×`side` square of modules can touch.
 * Codewords are laid out in two-module-wide columns, 4 rows per codeword, and consecutive
 * codewords belong to consecutive blocks (interleaving). The square spans at most
 * floor((side-1)/2)+2 column pairs, and in each at most ceil(side/4)+1 consecutive codewords,
 * which land in one block at most ceil(run/blocks) times; the one place where interleaving
 * moves from data to error-correction codewords (short blocks drop out) can add one more.
 */
export function worstBlockDamage(side: number, blocks: number): number {
  const columnPairs = Math.floor((side - 1) / 2) + 2;
  const run = Math.ceil(side / 4) + 1;
  return columnPairs * Math.ceil(run / blocks) + 1;
}

export function ecBlocks(version: number, level: LogoLevel): number {
  return EC_BLOCKS[level][version]!;
}

/** Codewords each block of this version and level can correct. */
export function correctablePerBlock(version: number, level: LogoLevel): number {
  return Math.floor(EC_CODEWORDS_PER_BLOCK[level][version]! / 2);
}

/**
 * The side, in modules, of the largest centred square a logo may clear in a code of `modules`
 * modules per side at `level`; odd, so it sits exactly in the middle. 0 when none fits.
 */
export function maxLogoModules(modules: number, level: LogoLevel): number {
  const version = versionOf(modules);
  const budget = correctablePerBlock(version, level) - SPARE_CODEWORDS_PER_BLOCK;
  const blocks = ecBlocks(version, level);
  const designCap = Math.floor(modules * MAX_LOGO_SHARE_OF_SIDE);
  let best = 0;
  for (let side = 1; side <= designCap; side += 2) {
    if (worstBlockDamage(side, blocks) <= budget) best = side;
  }
  return best;
}
