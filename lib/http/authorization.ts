import { unauthenticated } from "./errors";

/** The Authorization header's scheme, lower-cased ("bearer", "payment", …), or null without one. */
export function authorizationScheme(request: Request): string | null {
  return request.headers.get("authorization")?.trim().split(/\s+/)[0]?.toLowerCase() || null;
}

/** The bearer token; anything else (no header, another scheme, a malformed value) is unauthenticated. */
export function bearerToken(request: Request): string {
  const match = /^bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  if (!match) throw unauthenticated();
  return match[1]!;
}
