import { config } from "@/lib/config";
import { RESOURCE_METADATA_PATH } from "@/lib/http/errors";
import { SCOPES } from "@/lib/http/scopes";
import { ACCESS_TOKEN_SECONDS } from "./tokens";

/** The protected resource every token is bound to (RFC 8707): the MCP server's URL. The HTTP API honours the same tokens. */
export function resourceUrl(): string {
  return `${config().BASE_URL}/api/mcp`;
}

/** The authorization server's issuer identifier (RFC 8414): the deployment's own origin. */
export function issuer(): string {
  return config().BASE_URL;
}

/** Where the protected resource metadata is (RFC 9728 §3: the well-known path, with the resource's path after it). */
export function resourceMetadataUrl(): string {
  return `${config().BASE_URL}${RESOURCE_METADATA_PATH}`;
}

export const AUTHORIZE_PATH = "/api/oauth/authorize";
export const TOKEN_PATH = "/api/oauth/token";
export const REGISTER_PATH = "/api/oauth/register";
export const REVOKE_PATH = "/api/oauth/revoke";

/** RFC 9728's protected resource metadata. */
export function protectedResourceMetadata() {
  const base = config().BASE_URL;
  return {
    resource: resourceUrl(),
    authorization_servers: [issuer()],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "Permalink",
    resource_documentation: `${base}/docs/agents`,
  };
}

/** RFC 8414's authorization server metadata: authorization code with PKCE (S256), refresh tokens, open registration, public clients. */
export function authorizationServerMetadata() {
  const base = config().BASE_URL;
  return {
    issuer: issuer(),
    authorization_endpoint: `${base}${AUTHORIZE_PATH}`,
    token_endpoint: `${base}${TOKEN_PATH}`,
    registration_endpoint: `${base}${REGISTER_PATH}`,
    revocation_endpoint: `${base}${REVOKE_PATH}`,
    revocation_endpoint_auth_methods_supported: ["none"],
    scopes_supported: [...SCOPES],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: ["none"],
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${base}/docs/agents`,
    "x-access-token-lifetime-seconds": ACCESS_TOKEN_SECONDS,
  };
}

/** The metadata documents are public (their routes are read across origins: `crossOrigin`) and may be cached a little. */
export const METADATA_HEADERS = { "Cache-Control": "public, max-age=300" };
