/**
 * Where a sign-in may send someone afterwards: `candidate` resolved against `baseUrl` as a browser
 * would (backslashes read as slashes, tabs and line breaks dropped), kept only when it lands on
 * baseUrl's own origin, and given back absolute and percent-encoded, so no later reader can take
 * it for another host ("/\evil.example", "/%09/evil.example", "/.//evil.example") or find a raw
 * line break or non-ASCII character in a Location header. Null when it leads anywhere else.
 */
export function sameOriginUrl(candidate: string | null | undefined, baseUrl: string): string | null {
  if (!candidate) return null;
  const base = new URL(baseUrl);
  const resolved = URL.parse(candidate, base);
  if (!resolved || resolved.origin !== base.origin) return null;
  return resolved.href;
}
