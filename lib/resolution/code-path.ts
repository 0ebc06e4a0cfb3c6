import { canonicalCode, collidingPath } from "@/lib/links/slugs";

/*
 * Pure (no database, no configuration): the service's doors and the escrow's verifier
 * (scripts/verify-escrow.ts) read a visit's path into its code with this one function, so a
 * code served from an escrow is reached by exactly the paths that reach it live.
 */

/** The path of most visits: one plain segment, which is its code as it is (no decoding, no normalising). */
const PLAIN_CODE_PATH = /^\/([A-Za-z0-9_-]+)$/;
/** A dot segment, raw or percent-encoded: resolved as the WHATWG URL parser (and so Next's proxy) resolves it. */
const DOT_SEGMENT = /\/(?:\.|%2e)/i;

/**
 * The code a path names (docs/adr/0007-printed-slugs.md): the plain path's segment at once;
 * otherwise the path without its leading `/`, dot segments resolved as a URL parser resolves
 * them, percent-decoded (a broken escape is kept, and then is no code) and in its one stored form
 * (NFC). Null for the root and for paths of ours (a code never starts with them: collidingPath).
 */
export function codeInPath(pathname: string): string | null {
  const plain = PLAIN_CODE_PATH.exec(pathname);
  if (plain) return plain[1]!;
  let path = pathname;
  if (DOT_SEGMENT.test(path)) {
    try {
      path = new URL(path, "http://code.invalid").pathname;
    } catch {
      return null;
    }
  }
  if (path.length < 2 || path[0] !== "/") return null;
  let code = path.slice(1);
  try {
    code = decodeURIComponent(code);
  } catch {
    // Kept as sent: not a code, so the visit is an unknown code's.
  }
  code = canonicalCode(code);
  return collidingPath(code) === null ? code : null;
}
