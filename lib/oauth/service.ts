import { clock } from "@/lib/clock";
import { transaction } from "@/lib/db/client";
import { isRecordId } from "@/lib/db/random";
import { DomainError, forbidden, notFound } from "@/lib/http/errors";
import { storedText } from "@/lib/http/schemas";
import { parseScopes, type Scope, SCOPE_WORDING, SCOPES } from "@/lib/http/scopes";
import { can, roleMayGrant } from "@/lib/workspaces/permissions";
import { findRole, userMemberships } from "@/lib/workspaces/store";
import type { Principal, Role } from "@/lib/workspaces/types";
import { OAuthClientMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import { z } from "zod";
import { issuer, resourceUrl } from "./metadata";
import type { authorizationQuerySchema, OAuthErrorBody, registeredClientSchema, tokenFormSchema } from "./schemas";
import * as store from "./store";
import {
  ACCESS_TOKEN_SECONDS,
  AUTHORIZATION_REQUEST_MINUTES,
  CODE_SECONDS,
  newAccessToken,
  newCode,
  newRefreshToken,
  REFRESH_TOKEN_DAYS,
  S256_CHALLENGE,
  secretHash,
  verifierMatches,
} from "./tokens";

type AuthorizationQuery = z.output<typeof authorizationQuerySchema>;
type TokenForm = z.output<typeof tokenFormSchema>;

/** A refusal in OAuth's words: its status, and the body every OAuth client reads. */
export type OAuthRefusal = { ok: false; status: 400 | 401; body: OAuthErrorBody };
type Outcome<Value> = { ok: true; value: Value } | OAuthRefusal;

const refuse = (error: string, description: string, status: 400 | 401 = 400): OAuthRefusal => ({
  ok: false,
  status,
  body: { error, error_description: description },
});

const now = () => new Date(clock().now());

// ── Registration (RFC 7591) ──────────────────────────────────────────────────────────────────

const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2000;
const MAX_NAME_LENGTH = 100;
const PLAIN_TEXT = storedText(z.string());
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** A redirect URI we send codes to: https, or http on a loopback address (RFC 8252 §7.3), with no fragment or user name. */
function redirectUriProblem(candidate: string): string | null {
  if (candidate.length > MAX_URI_LENGTH) return `is longer than ${MAX_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return "is not an absolute URL";
  }
  if (url.hash || candidate.includes("#")) return "must not carry a fragment (#…)";
  if (url.username || url.password) return "must not carry a user name or password";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return "must be https, or http on a loopback address (127.0.0.1, [::1] or localhost)";
}

function httpsUriProblem(candidate: string): string | null {
  if (candidate.length > MAX_URI_LENGTH) return `is longer than ${MAX_URI_LENGTH} characters`;
  try {
    return new URL(candidate).protocol === "https:" ? null : "must be an https address";
  } catch {
    return "is not an absolute URL";
  }
}

/**
 * Registers an app (open registration, RFC 7591): public clients only (PKCE instead of a
 * secret), redirect URIs https or loopback. Its name and addresses are kept as text: shown on the
 * consent page and among connected apps, never fetched on anyone's behalf.
 */
export async function registerClient(body: unknown): Promise<Outcome<z.output<typeof registeredClientSchema>>> {
  const parsed = OAuthClientMetadataSchema.safeParse(body);
  const metadata = (parsed.success ? parsed.data : body) as Record<string, unknown>;
  const redirectUris = metadata.redirect_uris;
  if (!Array.isArray(redirectUris) || redirectUris.length === 0 || !redirectUris.every((uri) => typeof uri === "string"))
    return refuse("invalid_redirect_uri", "redirect_uris must be a list of at least one address the code is sent back to.");
  if (redirectUris.length > MAX_REDIRECT_URIS)
    return refuse("invalid_redirect_uri", `redirect_uris may list at most ${MAX_REDIRECT_URIS} addresses.`);
  for (const uri of redirectUris as string[]) {
    const problem = redirectUriProblem(uri);
    if (problem) return refuse("invalid_redirect_uri", `The redirect URI ${JSON.stringify(uri.slice(0, 200))} ${problem}.`);
  }
  if (!parsed.success)
    return refuse("invalid_client_metadata", `The client metadata is not valid: ${parsed.error.issues[0]?.message}.`);
  const name = (metadata.client_name as string | undefined)?.trim() || "An unnamed app";
  if (name.length > MAX_NAME_LENGTH)
    return refuse("invalid_client_metadata", `client_name is longer than ${MAX_NAME_LENGTH} characters.`);
  if (!PLAIN_TEXT.safeParse(name).success)
    return refuse("invalid_client_metadata", "client_name must not contain control or text-direction characters.");
  for (const field of ["client_uri", "logo_uri"] as const) {
    const value = metadata[field] as string | undefined;
    const problem = value === undefined ? null : httpsUriProblem(value);
    if (problem) return refuse("invalid_client_metadata", `${field} ${problem}.`);
  }
  const grantTypes = (metadata.grant_types as string[] | undefined) ?? ["authorization_code"];
  if (
    !grantTypes.includes("authorization_code") ||
    grantTypes.some((type) => !["authorization_code", "refresh_token"].includes(type))
  )
    return refuse("invalid_client_metadata", "grant_types may be authorization_code and refresh_token only.");
  const responseTypes = (metadata.response_types as string[] | undefined) ?? ["code"];
  if (responseTypes.some((type) => type !== "code")) return refuse("invalid_client_metadata", "response_types may be code only.");
  const client = await store.insertClient({
    name,
    clientUri: (metadata.client_uri as string | undefined) ?? null,
    logoUri: (metadata.logo_uri as string | undefined) ?? null,
    redirectUris: redirectUris as string[],
  });
  return {
    ok: true,
    value: {
      client_id: client.id,
      client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
      client_name: client.name,
      redirect_uris: client.redirectUris,
      ...(client.clientUri && { client_uri: client.clientUri }),
      ...(client.logoUri && { logo_uri: client.logoUri }),
      token_endpoint_auth_method: "none" as const,
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      scope: SCOPES.join(" "),
    },
  };
}

// ── The authorization request (RFC 6749 §4.1.1) ──────────────────────────────────────────────

/** Where the authorization request goes next: the consent page, or nowhere (a 400 here). */
export type AuthorizationStart = { ok: true; location: string } | OAuthRefusal;

/** A registered redirect URI; a loopback one matches on any port (RFC 8252 §7.3). */
function registeredRedirect(registered: readonly string[], candidate: string): boolean {
  if (registered.includes(candidate)) return true;
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" || !LOOPBACK_HOSTS.has(url.hostname)) return false;
  return registered.some((uri) => {
    const other = new URL(uri);
    return (
      other.protocol === "http:" &&
      other.hostname === url.hostname &&
      other.pathname === url.pathname &&
      other.search === url.search
    );
  });
}

/** The app's redirect URI with the answer's parameters, and iss (RFC 9207). */
export function redirectWith(redirectUri: string, parameters: Record<string, string | null | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries({ ...parameters, iss: issuer() }))
    if (value !== undefined && value !== null) url.searchParams.set(name, value);
  return url.toString();
}

/**
 * Checks an authorization request and keeps it for the person's decision. Every error is answered
 * here (400, OAuth's {error, error_description}), never by a redirect: registration is open, so a
 * redirect URI proves nothing about who registered it, and sending the browser there with an error
 * and no one having looked at anything would make this endpoint an open redirector (RFC 9700
 * §4.11.2). The browser goes back to the app only from the consent page, after the person answered.
 */
export async function startAuthorization(
  query: AuthorizationQuery,
  consentPage: (id: string) => string,
): Promise<AuthorizationStart> {
  const clientId = query.client_id ?? "";
  const client = isRecordId(clientId) && clientId.startsWith("ocl_") ? await store.findClient(clientId) : null;
  if (!client)
    return refuse("invalid_request", "client_id names no app registered here; register at the registration endpoint first.");
  const redirectUri = query.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0]! : undefined);
  if (!redirectUri) return refuse("invalid_request", "redirect_uri is missing, and the app registered more than one.");
  if (!registeredRedirect(client.redirectUris, redirectUri))
    return refuse("invalid_request", "redirect_uri is not one of the addresses this app registered; nothing was sent to it.");
  if (query.response_type !== "code") return refuse("unsupported_response_type", "Only response_type=code is supported.");
  if (query.code_challenge_method !== "S256")
    return refuse("invalid_request", "PKCE is required with code_challenge_method=S256 (plain is not accepted).");
  if (!query.code_challenge || !S256_CHALLENGE.test(query.code_challenge))
    return refuse("invalid_request", "code_challenge must be the 43-character base64url SHA-256 of the code verifier.");
  const resource = query.resource ?? resourceUrl();
  if (resource !== resourceUrl()) return refuse("invalid_target", `resource must be this server's MCP URL, ${resourceUrl()}.`);
  const { scopes, unknown } = parseScopes(query.scope ?? SCOPES.join(" "));
  if (unknown.length > 0)
    return refuse("invalid_scope", `Unknown scope ${JSON.stringify(unknown[0])}; the scopes are ${SCOPES.join(", ")}.`);
  if (scopes.length === 0) return refuse("invalid_scope", `Ask for at least one scope: ${SCOPES.join(", ")}.`);
  if ((query.state?.length ?? 0) > 1000) return refuse("invalid_request", "state is longer than 1000 characters.");
  const id = await store.insertAuthorization({
    clientId: client.id,
    redirectUri,
    codeChallenge: query.code_challenge,
    scopes,
    resource,
    state: query.state ?? null,
    expiresAt: new Date(clock().now() + AUTHORIZATION_REQUEST_MINUTES * 60_000),
  });
  return { ok: true, location: consentPage(id) } satisfies AuthorizationStart;
}

// ── The consent page ─────────────────────────────────────────────────────────────────────────

export const REQUEST_GONE = "This connection request has expired or was already answered. Start connecting again from the app.";

/** What the consent page shows: the app (as text), where it sends the answer, the scopes asked for, and the person's workspaces. */
export async function pendingConsent(userId: string, id: string) {
  const request = isRecordId(id) ? await store.findPendingAuthorization(id, now()) : null;
  if (!request) throw notFound(REQUEST_GONE);
  const memberships = await userMemberships(userId);
  const scopes = request.scopes as Scope[];
  return {
    id: request.id,
    app: { name: request.client.name, uri: request.client.clientUri },
    returnsTo: new URL(request.redirectUri).host,
    scopes,
    workspaces: memberships.map(({ role, workspace }) => ({
      id: workspace.id,
      name: workspace.name,
      kind: workspace.kind,
      role,
      grantable: scopes.filter((scope) => roleMayGrant(role, scope)),
    })),
  };
}

export type ConsentDecision = { allow: boolean; workspaceId: string; scopes: readonly string[] };

/**
 * The person's answer: allowed, a code for the chosen workspace and scopes (each one their role
 * there may allow: a viewer never allows a write); refused, access_denied. Either way the
 * answer is the address to send the browser back to the app with.
 */
export async function decideConsent(userId: string, id: string, decision: ConsentDecision): Promise<string> {
  const request = isRecordId(id) ? await store.findPendingAuthorization(id, now()) : null;
  if (!request) throw notFound(REQUEST_GONE);
  if (!decision.allow) {
    await store.closeAuthorization(id, now());
    return redirectWith(request.redirectUri, {
      error: "access_denied",
      error_description: "The person declined.",
      state: request.state,
    });
  }
  const role = await findRole(decision.workspaceId, userId);
  if (!role) throw forbidden("Choose a workspace you are a member of.");
  const { scopes, unknown } = parseScopes(decision.scopes.join(" "));
  const notAsked = scopes.filter((scope) => !request.scopes.includes(scope));
  if (unknown.length > 0 || notAsked.length > 0)
    throw new DomainError("invalid_request", `The app did not ask for ${[...unknown, ...notAsked].join(", ")}.`);
  if (scopes.length === 0) throw new DomainError("invalid_request", "Allow at least one kind of access, or choose Deny.");
  const beyondRole = scopes.filter((scope) => !roleMayGrant(role, scope));
  if (beyondRole.length > 0) throw forbidden(beyondRoleSentence(role, beyondRole));
  const code = newCode();
  const decided = await store.decideAuthorization(
    id,
    {
      userId,
      workspaceId: decision.workspaceId,
      grantedScopes: scopes,
      codeHash: secretHash(code),
      codeExpiresAt: new Date(clock().now() + CODE_SECONDS * 1000),
    },
    now(),
  );
  if (!decided) throw notFound(REQUEST_GONE);
  return redirectWith(request.redirectUri, { code, state: request.state });
}

function beyondRoleSentence(role: Role, scopes: readonly Scope[]): string {
  const what = scopes.map((scope) => `"${SCOPE_WORDING[scope]}"`).join(", ");
  return `As ${role === "admin" ? "an" : "a"} ${role} of this workspace you cannot allow an app to ${what.toLowerCase()}: your role does not let you do that yourself.`;
}

// ── The token endpoint (RFC 6749 §4.1.3, §6) ─────────────────────────────────────────────────

export type TokenResponse = {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
};

/** Answers a token request: a code (with its PKCE verifier) or a refresh token, for tokens bound to the MCP server's URL. */
export async function exchangeToken(form: TokenForm): Promise<Outcome<TokenResponse>> {
  const client = form.client_id && isRecordId(form.client_id) ? await store.findClient(form.client_id) : null;
  if (!client) return refuse("invalid_client", "client_id names no app registered here.", 401);
  if (form.resource !== undefined && form.resource !== resourceUrl())
    return refuse("invalid_target", `resource must be this server's MCP URL, ${resourceUrl()}.`);
  if (form.grant_type === "authorization_code") return exchangeCode(client.id, form);
  if (form.grant_type === "refresh_token") return refresh(client.id, form);
  return refuse("unsupported_grant_type", "grant_type must be authorization_code or refresh_token.");
}

const INVALID_CODE = "The code is not valid: unknown, expired, or for another app.";

async function exchangeCode(clientId: string, form: TokenForm): Promise<Outcome<TokenResponse>> {
  const { code, code_verifier: verifier } = form;
  if (!code || !verifier) return refuse("invalid_request", "code and code_verifier are required.");
  // One transaction holding the code's row: a second exchange of the code waits for the first to commit,
  // then sees it used and revokes the grant it gave, in the same transaction as its refusal.
  return transaction(async (tx): Promise<Outcome<TokenResponse>> => {
    const authorization = await store.lockAuthorizationByCode(tx, secretHash(code));
    if (!authorization || authorization.clientId !== clientId || !authorization.userId || !authorization.workspaceId)
      return refuse("invalid_grant", INVALID_CODE);
    if (authorization.usedAt) {
      if (authorization.grantId) await store.revokeGrant(tx, authorization.grantId, now());
      return refuse(
        "invalid_grant",
        "The code was already used; the tokens it gave have been revoked. Start again from the app.",
      );
    }
    if (authorization.expiresAt.getTime() <= clock().now()) return refuse("invalid_grant", INVALID_CODE);
    if (form.redirect_uri !== undefined && form.redirect_uri !== authorization.redirectUri)
      return refuse("invalid_grant", "redirect_uri is not the one the code was issued to.");
    if (!verifierMatches(verifier, authorization.codeChallenge))
      return refuse(
        "invalid_grant",
        "code_verifier does not match the code_challenge of the authorization request (PKCE, S256).",
      );
    if (form.resource !== undefined && form.resource !== authorization.resource)
      return refuse("invalid_target", "resource is not the one the code was issued for.");
    const grantId = await store.insertGrant(tx, {
      clientId,
      workspaceId: authorization.workspaceId,
      userId: authorization.userId,
      scopes: authorization.grantedScopes,
      resource: authorization.resource,
    });
    await store.spendCode(tx, authorization.id, grantId, now());
    return { ok: true, value: await issueTokens(tx, grantId, authorization.grantedScopes) };
  });
}

async function issueTokens(tx: Parameters<typeof store.insertTokens>[0], grantId: string, scopes: readonly string[]) {
  const [accessToken, refreshToken] = [newAccessToken(), newRefreshToken()];
  await store.insertTokens(tx, grantId, {
    accessHash: secretHash(accessToken),
    accessExpiresAt: new Date(clock().now() + ACCESS_TOKEN_SECONDS * 1000),
    refreshHash: secretHash(refreshToken),
    refreshExpiresAt: new Date(clock().now() + REFRESH_TOKEN_DAYS * 86_400_000),
  });
  return {
    access_token: accessToken,
    token_type: "Bearer" as const,
    expires_in: ACCESS_TOKEN_SECONDS,
    refresh_token: refreshToken,
    scope: scopes.join(" "),
  };
}

const INVALID_REFRESH = "The refresh token is not valid: unknown, expired, revoked, or for another app. Connect again.";

/** A refresh token is used once: it answers a new pair, and a second use of it revokes the whole grant (a replay). */
async function refresh(clientId: string, form: TokenForm): Promise<Outcome<TokenResponse>> {
  if (!form.refresh_token) return refuse("invalid_request", "refresh_token is required.");
  const token = await store.findToken(secretHash(form.refresh_token));
  if (!token || token.kind !== "refresh" || token.grant.clientId !== clientId || token.grant.revokedAt)
    return refuse("invalid_grant", INVALID_REFRESH);
  if (token.usedAt) return replayedRefresh(token.grant.id);
  if (token.expiresAt.getTime() <= clock().now()) return refuse("invalid_grant", INVALID_REFRESH);
  if (form.scope !== undefined) {
    const { scopes, unknown } = parseScopes(form.scope);
    if (unknown.length > 0 || scopes.some((scope) => !token.grant.scopes.includes(scope)))
      return refuse("invalid_scope", "A refresh cannot add scopes; connect again to ask for more.");
  }
  const issued = await transaction(async (tx) => {
    if (!(await store.spendRefreshToken(tx, token.id, now()))) return null;
    return issueTokens(tx, token.grant.id, token.grant.scopes);
  });
  return issued ? { ok: true, value: issued } : replayedRefresh(token.grant.id);
}

async function replayedRefresh(grantId: string): Promise<OAuthRefusal> {
  await transaction((tx) => store.revokeGrant(tx, grantId, now()));
  return refuse(
    "invalid_grant",
    "This refresh token was already used, so it may have been copied: the connection has been revoked. Connect again.",
  );
}

// ── Access tokens at the resource ────────────────────────────────────────────────────────────

/**
 * The principal an access token acts as: the person who allowed it, in the grant's workspace, with
 * their current role narrowed to the grant's scopes; null for a token that is unknown, expired,
 * revoked, bound to another resource, or whose person is no longer a member.
 */
export async function principalOfAccessToken(token: string): Promise<Principal | null> {
  const row = await store.findToken(secretHash(token));
  if (!row || row.kind !== "access" || row.expiresAt.getTime() <= clock().now()) return null;
  const { grant } = row;
  if (grant.revokedAt || grant.resource !== resourceUrl()) return null;
  const role = await findRole(grant.workspaceId, grant.userId);
  if (!role) return null;
  void store.recordGrantUse(grant.id, grant.lastUsedAt, now()).catch(() => undefined);
  return {
    kind: "session",
    userId: grant.userId,
    workspaceId: grant.workspaceId,
    role,
    grant: { id: grant.id, clientId: grant.clientId, scopes: grant.scopes as Scope[] },
  };
}

// ── Connected apps ───────────────────────────────────────────────────────────────────────────

const PEOPLE_ONLY = "Connected apps are seen and revoked by a person (the dashboard or a session token), not by a key or an app.";

function personOf(principal: Principal) {
  if (principal.kind !== "session" || principal.grant) throw forbidden(PEOPLE_ONLY);
  return principal;
}

/** The workspace's connected apps: every one for owners and admins, one's own for everyone else. */
export async function listConnectedApps(principal: Principal) {
  const person = personOf(principal);
  const rows = await store.listLiveGrants(person.workspaceId, can(person, "apps.manage") ? null : person.userId);
  return {
    grants: rows.map((row) => ({
      id: row.id,
      app: { client_id: row.client.id, name: row.client.name, uri: row.client.clientUri },
      connected_by: row.user.email,
      workspace: { id: row.workspace.id, name: row.workspace.name },
      scopes: row.scopes as Scope[],
      created_at: row.createdAt.getTime(),
      last_used_at: row.lastUsedAt?.getTime() ?? null,
    })),
  };
}

const NO_SUCH_GRANT = "There is no connected app with this id in this workspace.";

/** Revokes a connected app: its tokens stop working at once. Owners and admins revoke any; others their own. */
export async function revokeConnectedApp(principal: Principal, id: string): Promise<void> {
  const person = personOf(principal);
  const grant = await store.findLiveGrant(person.workspaceId, id);
  if (!grant) throw notFound(NO_SUCH_GRANT);
  if (grant.userId !== person.userId && !can(person, "apps.manage"))
    throw forbidden("Only an owner or admin can revoke an app someone else connected; you can revoke the ones you connected.");
  await transaction((tx) => store.revokeGrant(tx, grant.id, now()));
}
