/** The Cookie header as name → value (percent-decoded when it decodes). No prototype: a cookie named __proto__ is just a name. */
export function parseCookies(header: string | null): Record<string, string> {
  const jar: Record<string, string> = Object.create(null);
  for (const pair of header?.split(";") ?? []) {
    const separator = pair.indexOf("=");
    if (separator <= 0) continue;
    const raw = pair.slice(separator + 1).trim();
    jar[pair.slice(0, separator).trim()] = safelyDecoded(raw);
  }
  return jar;
}

function safelyDecoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
