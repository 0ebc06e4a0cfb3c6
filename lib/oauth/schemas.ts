import { epochMilliseconds } from "@/lib/http/schemas";
import { SCOPES } from "@/lib/http/scopes";
import { z } from "zod";

/** An OAuth error answer (RFC 6749 §5.2, RFC 7591 §3.2.2): a code clients switch on, and a sentence for a human. */
export const oauthErrorSchema = z
  .object({
    error: z.string().meta({ description: "the OAuth error code: invalid_request, invalid_grant, invalid_client_metadata, …" }),
    error_description: z.string().meta({ description: "a sentence for a human" }),
  })
  .meta({ id: "OAuthError" });

export type OAuthErrorBody = z.output<typeof oauthErrorSchema>;

const text = z.string().optional();

/**
 * RFC 7591's client metadata as sent; every field is read by the registration itself, which
 * answers an OAuth error (invalid_redirect_uri, invalid_client_metadata) rather than a validation sentence.
 */
export const clientMetadataSchema = z
  .looseObject({
    redirect_uris: z
      .array(z.string())
      .optional()
      .meta({ description: "https addresses, or http on a loopback address (127.0.0.1, [::1], localhost)" }),
    client_name: text.meta({ description: "shown on the consent page and among connected apps, as text" }),
    client_uri: text.meta({ description: "an https address, shown as text, never fetched" }),
    logo_uri: text.meta({ description: "an https address, kept but never fetched or shown as an image" }),
    token_endpoint_auth_method: text.meta({ description: "none: a public client proving itself with PKCE (the only method)" }),
    grant_types: z.array(z.string()).optional(),
    response_types: z.array(z.string()).optional(),
    scope: text,
  })
  .meta({ id: "OAuthClientMetadata" });

export const registeredClientSchema = z
  .object({
    client_id: z.string(),
    client_id_issued_at: z.number().int().meta({ description: "epoch seconds" }),
    client_name: z.string(),
    redirect_uris: z.array(z.string()),
    client_uri: z.string().optional(),
    logo_uri: z.string().optional(),
    token_endpoint_auth_method: z.literal("none"),
    grant_types: z.array(z.string()),
    response_types: z.array(z.string()),
    scope: z.string(),
  })
  .meta({ id: "OAuthClient" });

/** The authorization request's query (RFC 6749 §4.1.1, RFC 7636, RFC 8707); read by the capability, which answers OAuth's errors. */
export const authorizationQuerySchema = z.looseObject({
  response_type: text,
  client_id: text,
  redirect_uri: text,
  scope: text,
  state: text,
  code_challenge: text,
  code_challenge_method: text,
  resource: text,
});

/** The token request's form (RFC 6749 §4.1.3 and §6, RFC 7636 §4.5, RFC 8707 §2.2). */
export const tokenFormSchema = z
  .looseObject({
    grant_type: text.meta({ description: "authorization_code or refresh_token" }),
    code: text,
    redirect_uri: text,
    code_verifier: text,
    client_id: text,
    refresh_token: text,
    resource: text.meta({ description: "the MCP server's URL (the protected resource's metadata names it)" }),
    scope: text,
  })
  .meta({ id: "OAuthTokenRequest" });

export const tokenResponseSchema = z
  .object({
    access_token: z.string(),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int(),
    refresh_token: z
      .string()
      .meta({ description: "used once: each refresh answers a new one, and a second use revokes the grant" }),
    scope: z.string(),
  })
  .meta({ id: "OAuthTokens" });

const scopeSchema = z.enum(SCOPES);

export const connectedAppSchema = z
  .object({
    id: z.string().meta({ description: "ogr_…: the {id} of DELETE /api/oauth/grants/{id}" }),
    app: z.object({ client_id: z.string(), name: z.string(), uri: z.string().nullable() }),
    connected_by: z.string().nullable().meta({ description: "the e-mail address of the person who allowed it" }),
    workspace: z.object({ id: z.string(), name: z.string() }),
    scopes: z.array(scopeSchema),
    created_at: epochMilliseconds,
    last_used_at: epochMilliseconds.nullable(),
  })
  .meta({ id: "ConnectedApp" });

export const connectedAppListSchema = z.object({ grants: z.array(connectedAppSchema) }).meta({ id: "ConnectedAppList" });
