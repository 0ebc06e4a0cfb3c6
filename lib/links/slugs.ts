import { randomString } from "@/lib/db/random";
import { APP_TOP_LEVEL_PATHS } from "./app-paths";

/** No 0, O, 1, l or I: a printed or spoken code cannot be misread. Slugs are case-sensitive. */
export const SLUG_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
export const ALLOCATED_SLUG_LENGTH = 7;
export const CUSTOM_SLUG_MIN = 3;
export const CUSTOM_SLUG_MAX = 64;
/** Custom slugs may also use - and _ as separators. */
export const CUSTOM_SLUG_PATTERN = /^[23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz_-]+$/;

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
