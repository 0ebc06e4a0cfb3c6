/**
 * CORS for the doors agent platforms call from a page of their own origin (the MCP authorization
 * specification's browser-based clients): the OAuth metadata documents, registration, the token
 * and revocation endpoints and the MCP server. Any origin may read them (`*`), and never with
 * credentials: no `Access-Control-Allow-Credentials`, so a browser sends no cookie with these
 * requests and reads no answer to one that carried any. These doors read only the bearer
 * credential in `Authorization`, never the dashboard's cookie.
 */

/** What a browser may send across origins: the MCP transport's headers, a bearer credential, a JSON or form body. */
export const CROSS_ORIGIN_REQUEST_HEADERS = [
  "Authorization",
  "Content-Type",
  "Accept",
  "MCP-Protocol-Version",
  "Mcp-Session-Id",
  "Last-Event-ID",
  "X-Workspace-Id",
] as const;

/** What a page may read of the answer beyond the safelisted headers: the OAuth challenge and the MCP session. */
export const CROSS_ORIGIN_EXPOSED_HEADERS = [
  "WWW-Authenticate",
  "Mcp-Session-Id",
  "MCP-Protocol-Version",
  "Retry-After",
] as const;

/** How long a browser may keep a preflight's answer: a day. */
const PREFLIGHT_MAX_AGE_SECONDS = 86_400;

/** The headers every answer of a cross-origin door carries. */
export const CROSS_ORIGIN_HEADERS: Readonly<Record<string, string>> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": CROSS_ORIGIN_EXPOSED_HEADERS.join(", "),
};

/** The preflight's answer (OPTIONS) for a door serving these methods. */
export function preflightHeaders(methods: readonly string[]): Record<string, string> {
  return {
    ...CROSS_ORIGIN_HEADERS,
    "Access-Control-Allow-Methods": methods.join(", "),
    "Access-Control-Allow-Headers": CROSS_ORIGIN_REQUEST_HEADERS.join(", "),
    "Access-Control-Max-Age": String(PREFLIGHT_MAX_AGE_SECONDS),
  };
}

/** The response with the cross-origin headers added (a transport's response may have immutable headers: copied). */
export function readableAcrossOrigins(response: Response): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(CROSS_ORIGIN_HEADERS)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
