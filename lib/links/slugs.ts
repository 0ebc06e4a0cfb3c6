import { randomString } from "@/lib/db/random";
import { APP_TOP_LEVEL_PATHS } from "./app-paths";

/**
 * The slug rules, in one place (docs/adr/0007-printed-slugs.md):
 * - slugs we allocate, and custom slugs typed here, avoid 0, O, 1, l and I, so a code we issue
 *   cannot be misread when printed or spoken (the contract's alphabet);
 * - a slug an import brings was issued and printed elsewhere: it keeps every ASCII letter and
 *   digit, so the printed code resolves here unchanged;
 * - every slug is case-sensitive, 3–64 characters when chosen, and never a name of the app's pages;
 *   a visit with no exact code reaches the one code matching it ignoring case, and no new code but
 *   an imported case twin differs from another only by case (docs/adr/0010-codes-in-the-wrong-case.md).
 */
export const SLUG_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
export const ALLOCATED_SLUG_LENGTH = 7;
export const CUSTOM_SLUG_MIN = 3;
export const CUSTOM_SLUG_MAX = 64;
/** Custom slugs typed here: the allocated alphabet, plus - and _ as separators. */
export const CUSTOM_SLUG_PATTERN = new RegExp(`^[${SLUG_ALPHABET}_-]+$`);
/** Slugs an import keeps as printed, and so every slug the doors look up: any ASCII letter or digit, plus - and _. */
export const PRINTED_SLUG_PATTERN = /^[A-Za-z0-9_-]+$/;

/** A slug may not shadow a page when short links share the application's host. */
const RESERVED_SLUGS: ReadonlySet<string> = new Set(APP_TOP_LEVEL_PATHS);

export function allocateSlug(): string {
  for (;;) {
    const slug = randomString(SLUG_ALPHABET, ALLOCATED_SLUG_LENGTH);
    if (!isReserved(slug)) return slug;
  }
}

export function isReserved(slug: string): boolean {
  return RESERVED_SLUGS.has(slug.toLowerCase());
}
