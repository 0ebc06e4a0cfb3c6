/**
 * The top-level paths the application itself serves (pages, the API, Next's assets, well-known
 * files), compared case-insensitively. Slugs may not shadow them, and the app's security headers
 * (next.config.ts) cover them. Imports nothing, so next.config.ts can read it.
 */
export const APP_TOP_LEVEL_PATHS: readonly string[] = [
  "api",
  "docs",
  "dashboard",
  "signin",
  "signout",
  "login",
  "logout",
  "billing",
  "account",
  "settings",
  "pricing",
  "abuse",
  "report",
  "health",
  "status",
  "static",
  "assets",
  "_next",
  "robots.txt",
  "favicon.ico",
  "llms.txt",
  // Next serves app/icon.svg here; no slug can contain a dot, so no code is shadowed.
  "icon.svg",
  // OAuth's metadata documents (RFC 8414, RFC 9728); a dot again, so no code is shadowed.
  ".well-known",
];

/**
 * Top-level names whose paths below are the application's while the name alone stays a code:
 * `/invite/{token}` is an invitation's page and `/connect/{id}` an app's consent page, but `/invite`
 * and `/connect` were possible short links before codes had several segments, so they are not
 * reserved and no issued code is shadowed.
 */
export const APP_SUBTREES: readonly string[] = ["invite", "connect"];
