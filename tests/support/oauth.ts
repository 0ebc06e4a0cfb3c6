import { config } from "@/lib/config";
import { decideConsent } from "@/lib/oauth/service";
import { createHash, randomBytes } from "node:crypto";
import { expect } from "vitest";
import { call } from "./api";

/**
 * An OAuth client's side of the flow, through the route handlers in-process: registration, the
 * authorization request, the person's decision (what the consent page's action calls) and the
 * token endpoint. The browser flow with the MCP SDK's own client is e2e/oauth.e2e.ts.
 */

export const mcpUrl = () => `${config().BASE_URL}/api/mcp`;
export const REDIRECT = "http://127.0.0.1:4711/callback";

export function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export async function register(redirectUris: string[] = [REDIRECT], extra: Record<string, unknown> = {}) {
  return call("POST", "/api/oauth/register", { body: { redirect_uris: redirectUris, client_name: "Test agent", ...extra } });
}

export const form = (fields: Record<string, string>) => ({
  rawBody: new URLSearchParams(fields).toString(),
  headers: { "content-type": "application/x-www-form-urlencoded" },
});

export type Started = { clientId: string; verifier: string; requestId: string };

export function authorize(params: Record<string, string>) {
  return call("GET", `/api/oauth/authorize?${new URLSearchParams(params)}`);
}

/** Registers an app and starts an authorization: the request waiting on the consent page. */
export async function start(scope = "links:read links:write account:read"): Promise<Started> {
  const clientId = (await register()).body.client_id as string;
  const { verifier, challenge } = pkce();
  const started = await authorize({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope,
    state: "st-1",
    resource: mcpUrl(),
  });
  expect(started.status, started.text).toBe(303);
  const location = new URL(started.headers.get("location")!);
  expect(location.pathname).toMatch(/^\/connect\/oau_/);
  return { clientId, verifier, requestId: location.pathname.split("/").pop()! };
}

/** The person allows the request on a workspace, with these scopes: the code sent back to the app. */
export async function allow(person: { userId: string }, started: Started, scopes: readonly string[], workspaceId: string) {
  const back = new URL(await decideConsent(person.userId, started.requestId, { allow: true, workspaceId, scopes }));
  expect(back.origin + back.pathname).toBe(REDIRECT);
  expect(back.searchParams.get("state")).toBe("st-1");
  expect(back.searchParams.get("iss")).toBe(config().BASE_URL);
  return back.searchParams.get("code")!;
}

export async function exchange(started: Started, code: string, verifier = started.verifier) {
  return call(
    "POST",
    "/api/oauth/token",
    form({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: started.clientId,
      redirect_uri: REDIRECT,
      resource: mcpUrl(),
    }),
  );
}

export type Tokens = { access_token: string; refresh_token: string; scope: string; expires_in: number };

/** An app the person connected to the workspace with these scopes (asking for SCOPES' whole list), and its tokens. */
export async function connectApp(person: { userId: string }, workspaceId: string, scopes: readonly string[]) {
  const started = await start([...new Set(["links:read", "links:write", "account:read", ...scopes])].join(" "));
  const code = await allow(person, started, scopes, workspaceId);
  const tokens = await exchange(started, code);
  expect(tokens.status, tokens.text).toBe(200);
  return { started, tokens: tokens.body as Tokens };
}
