import { DomainError } from "@/lib/http/errors";

/** Below this WCAG contrast ratio (the one for graphics) phone cameras start to miss modules. */
export const MIN_CONTRAST_RATIO = 3;

/** WCAG 2 relative luminance of a `#rrggbb` colour: 0 for black, 1 for white. */
export function relativeLuminance(hex: string): number {
  const [red, green, blue] = [1, 3, 5].map((start) => linearChannel(parseInt(hex.slice(start, start + 2), 16) / 255));
  return 0.2126 * red! + 0.7152 * green! + 0.0722 * blue!;
}

function linearChannel(value: number): number {
  return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
}

/** WCAG 2 contrast ratio between two colours, from 1 (same) to 21 (black on white). */
export function contrastRatio(first: string, second: string): number {
  const [lighter, darker] = [relativeLuminance(first), relativeLuminance(second)].sort((a, b) => b - a);
  return (lighter! + 0.05) / (darker! + 0.05);
}

/**
 * Why many scanners cannot read a code in these colours (modules lighter than the background, an
 * inverted code, or too little contrast between them), or null when they can. The designer shows
 * it while the colours change; saving and drawing refuse with it.
 */
export function unscannableColours(fg: string, bg: string): string | null {
  if (relativeLuminance(fg) > relativeLuminance(bg)) {
    return (
      `The foreground ${fg} is lighter than the background ${bg}; many scanners cannot read an ` +
      `inverted code, so use a dark foreground on a light background.`
    );
  }
  const ratio = contrastRatio(fg, bg);
  if (ratio < MIN_CONTRAST_RATIO) {
    return (
      `The foreground ${fg} and background ${bg} have a contrast ratio of ${ratio.toFixed(2)}:1; a ` +
      `code needs at least ${MIN_CONTRAST_RATIO}:1 to scan reliably, so darken the foreground or ` +
      `lighten the background.`
    );
  }
  return null;
}

export function requireScannableColours(fg: string, bg: string): void {
  const problem = unscannableColours(fg, bg);
  if (problem) throw new DomainError("invalid_request", problem);
}
