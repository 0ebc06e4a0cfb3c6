import { randomString } from "@/lib/db/random";
import { APP_SUBTREES, APP_TOP_LEVEL_PATHS } from "./app-paths";

/**
 * The slug rules, in one place (docs/adr/0007-printed-slugs.md):
 * - slugs we allocate, and custom slugs typed here, avoid 0, O, 1, l and I, so a code we issue
 *   cannot be misread when printed or spoken (the contract's alphabet); typed ones may also use
 *   `.` and `~` between characters and several segments (`2024/spring`);
 * - a code an import brings was issued and printed elsewhere: it keeps what its source allowed
 *   (any letter of any script, digits, `- _ . ~`, one character or several segments), so the
 *   printed code resolves here unchanged;
 * - every code is stored in one form, Unicode NFC (`canonicalCode`), which is what the doors look
 *   up whatever form the visit's path used (percent-encoded, decomposed);
 * - no code starts with a path the service answers itself on that host (`collidingPath`);
 * - every slug is case-sensitive, and never a name of the app's pages on the app's host; a visit
 *   with no exact code reaches the one code matching it ignoring case, and no new code but an
 *   imported case twin differs from another only by case (docs/adr/0010-codes-in-the-wrong-case.md).
 */
export const SLUG_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
export const ALLOCATED_SLUG_LENGTH = 7;
export const CUSTOM_SLUG_MIN = 3;
export const CUSTOM_SLUG_MAX = 64;
/** A printed code's bound: longer than any peer prints, short enough for the unique indexes. */
export const PRINTED_CODE_MAX = 190;
/**
 * Custom slugs typed here: segments of the allocated alphabet, each separated by `/`, with - and _
 * anywhere and `.` and `~` only between two characters of a segment (never its first or last:
 * no `..`, no hidden-file name, nothing a linkifier would cut off the end of a sentence).
 */
export const CUSTOM_SLUG_PATTERN = new RegExp(
  `^[${SLUG_ALPHABET}_-]+(?:[.~][${SLUG_ALPHABET}_-]+)*(?:/[${SLUG_ALPHABET}_-]+(?:[.~][${SLUG_ALPHABET}_-]+)*)*$`,
);
/** The codes most visits carry: ASCII letters and digits, - and _, one segment. The doors' fast path. */
export const PLAIN_SLUG_PATTERN = /^[A-Za-z0-9_-]+$/;
/** One segment of a printed code: letters of any script (with their marks), digits, - _ . ~ */
const PRINTED_SEGMENT = /^[\p{L}\p{M}\p{N}_.~-]+$/u;

/** A slug may not shadow a page when short links share the application's host. */
const RESERVED_SLUGS: ReadonlySet<string> = new Set(APP_TOP_LEVEL_PATHS);
/** The first segments no code with several may have: the app's names, and the subtrees below an unreserved name. */
const APP_PREFIXES: ReadonlySet<string> = new Set([...APP_TOP_LEVEL_PATHS, ...APP_SUBTREES]);
/**
 * Paths answered before either door on every host: Next's build assets (Vercel serves /_next/
 * itself) and /.well-known/ (certificate challenges, and what a host publishes there). No code
 * starts with them.
 */
const PLATFORM_PATHS: ReadonlySet<string> = new Set(["_next", ".well-known"]);

export function allocateSlug(): string {
  for (;;) {
    const slug = randomString(SLUG_ALPHABET, ALLOCATED_SLUG_LENGTH);
    if (!isReserved(slug)) return slug;
  }
}

export function isReserved(slug: string): boolean {
  return RESERVED_SLUGS.has(slug.toLowerCase());
}

/** The one stored form of a code: Unicode NFC, so `café` typed precomposed or decomposed is one code. */
export function canonicalCode(code: string): string {
  return code.normalize("NFC");
}

/**
 * The path of ours a code would take, or null: `/_next` and `/.well-known` on every host, and on
 * any host the first segment of a code with several (`api/v2`, `dashboard/links`, `invite/x`), since a path
 * below one of the app's names is the application's (its host) or its refusal (a host of short
 * links only, which tells API callers where the API is). A one-segment `docs` is no page on a
 * custom domain, so it stays a code there.
 */
export function collidingPath(code: string): string | null {
  const slash = code.indexOf("/");
  const first = (slash === -1 ? code : code.slice(0, slash)).toLowerCase();
  if (PLATFORM_PATHS.has(first) || (slash !== -1 && APP_PREFIXES.has(first))) return `/${first}`;
  return null;
}

/** Why a code another service printed cannot be a code here (a sentence fragment), or null. */
export function printedCodeProblem(code: string): string | null {
  const length = [...code].length;
  if (length === 0) return "must not be empty";
  if (length > PRINTED_CODE_MAX) return `must be at most ${PRINTED_CODE_MAX} characters`;
  for (const segment of code.split("/")) {
    if (segment === "" || segment === "." || segment === "..")
      return "may not have an empty segment, nor one that is only . or .. (a path's own names)";
    if (!PRINTED_SEGMENT.test(segment)) return "may use letters of any script, digits and - _ . ~, in segments separated by /";
  }
  const path = collidingPath(code);
  return path ? `is under ${path}, which this service answers itself on every address it serves` : null;
}

/** Whether a code is one the service may hold: every code the doors look up passes it (the plain ones at once). */
export function isLookupCode(code: string): boolean {
  return PLAIN_SLUG_PATTERN.test(code) || (code.length <= PRINTED_CODE_MAX * 2 && printedCodeProblem(code) === null);
}

/** The code as a URL's path, `/` and each segment percent-encoded where it is not ASCII: `/caf%C3%A9`, `/2024/spring`. */
export function codePath(code: string): string {
  return PLAIN_SLUG_PATTERN.test(code) ? `/${code}` : `/${code.split("/").map(encodeURIComponent).join("/")}`;
}
