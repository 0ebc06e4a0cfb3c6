import { defineOperation, failure, ok, type ParameterSpec } from "@/lib/http/operation";
import {
  authorizationQuerySchema,
  clientMetadataSchema,
  connectedAppListSchema,
  oauthErrorSchema,
  registeredClientSchema,
  tokenFormSchema,
  tokenResponseSchema,
} from "./schemas";

const oauthError = (description: string) => ({ description, body: oauthErrorSchema });

export const registerOAuthClient = defineOperation({
  method: "post",
  path: "/api/oauth/register",
  auth: "public",
  operationId: "registerOAuthClient",
  summary: "Register an app for OAuth (RFC 7591)",
  description:
    "Open dynamic client registration, as MCP clients do before connecting. Every app is a public " +
    "client (token_endpoint_auth_method none) that proves itself with PKCE (S256). Redirect URIs " +
    "must be https, or http on a loopback address (any port). client_name is shown as text on the " +
    "consent page and among connected apps; client_uri and logo_uri are kept, never fetched.",
  tag: "OAuth",
  write: true,
  body: clientMetadataSchema,
  invalidBodyError: "invalid_client_metadata",
  responses: {
    201: ok("The app is registered: its client_id.", registeredClientSchema),
    400: oauthError("invalid_redirect_uri or invalid_client_metadata, with a sentence saying which field and why."),
  },
});

export const authorizeOAuth = defineOperation({
  method: "get",
  path: "/api/oauth/authorize",
  auth: "public",
  operationId: "authorizeOAuth",
  summary: "Start an authorization (OAuth 2.1, PKCE S256)",
  description:
    "The authorization endpoint: response_type=code, client_id, redirect_uri, code_challenge with " +
    "code_challenge_method=S256, scope, state and resource (RFC 8707: this server's MCP URL, " +
    "/api/mcp). A valid request goes on (303) to the consent page, where the signed-in person " +
    "chooses a workspace and the scopes their role there allows, and answers Allow (the code) or " +
    "Deny (access_denied) back to redirect_uri. A request with anything wrong is answered here, " +
    "400, and never sent to redirect_uri: no one has looked at it yet (RFC 9700 §4.11.2).",
  tag: "OAuth",
  // Anyone may call it, and a valid request stores a row until it expires: the caller's write budget applies.
  write: true,
  query: authorizationQuerySchema,
  responses: {
    303: { description: "To the consent page.", headers: { Location: "Location" } },
    400: oauthError(
      "invalid_request (an unknown client_id, a redirect_uri it did not register, PKCE missing or not S256, state too " +
        "long), unsupported_response_type, invalid_target or invalid_scope: nothing is sent to redirect_uri.",
    ),
  },
});

export const exchangeOAuthToken = defineOperation({
  method: "post",
  path: "/api/oauth/token",
  auth: "public",
  operationId: "exchangeOAuthToken",
  summary: "Exchange a code or a refresh token for tokens",
  description:
    "The token endpoint (application/x-www-form-urlencoded). grant_type=authorization_code with " +
    "code, redirect_uri, code_verifier and client_id; or grant_type=refresh_token with " +
    "refresh_token and client_id. The access token lasts 15 minutes and is bound to this server's " +
    "MCP URL; the refresh token works once (each refresh answers a new one) and a second use of it " +
    "revokes the connection. A code works once: a second use revokes the tokens it gave.",
  tag: "OAuth",
  write: true,
  form: tokenFormSchema,
  invalidBodyError: "invalid_request",
  responses: {
    200: ok("The tokens.", tokenResponseSchema),
    400: oauthError(
      "invalid_request, invalid_grant (a wrong code_verifier, a used or expired code, a used refresh token), " +
        "invalid_target (resource is not this server's MCP URL), invalid_scope or unsupported_grant_type.",
    ),
    401: oauthError("invalid_client: client_id names no registered app."),
  },
});

const GRANT_ID = {
  name: "id",
  in: "path",
  required: true,
  description: "the connected app's id (ogr_…)",
} as const satisfies ParameterSpec;

export const listOAuthGrants = defineOperation({
  method: "get",
  path: "/api/oauth/grants",
  auth: "session",
  operationId: "listOAuthGrants",
  summary: "List connected apps",
  description:
    "The apps connected with OAuth to this workspace: each app's name (as it registered it), who " +
    "connected it, the workspace, the scopes allowed, when it was connected and last used. Owners " +
    "and admins see every one; others see those they connected. A person's session only.",
  tag: "OAuth",
  responses: {
    200: ok("The connected apps, newest first.", connectedAppListSchema),
    403: failure("An API key or a connected app asked: only a person sees connected apps."),
  },
});

export const revokeOAuthGrant = defineOperation({
  method: "delete",
  path: "/api/oauth/grants/{id}",
  auth: "session",
  operationId: "revokeOAuthGrant",
  summary: "Revoke a connected app",
  description:
    "Ends the connection: its access and refresh tokens stop working at once. Owners and admins " +
    "revoke any; others revoke those they connected. A person's session only.",
  tag: "OAuth",
  write: true,
  parameters: [GRANT_ID],
  responses: {
    204: { description: "Revoked." },
    403: failure("Someone else connected it and you are not an owner or admin, or an API key or a connected app asked."),
    404: failure("No connected app with this id in this workspace (or it was revoked already)."),
  },
});
