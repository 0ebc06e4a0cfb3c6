import type { z } from "zod";
import { paymentRequiredSchema } from "./payment-required";
import { errorSchema } from "./schemas";
import type { Scope } from "./scopes";

/**
 * Who may call a route. The route wrapper (lib/api/route.ts) enforces it before anything else;
 * the OpenAPI document (lib/openapi) describes it.
 * - workspace: an API key or a session token, resolved to a principal acting on one workspace.
 * - session: the same; the capability refuses an API key (documented as session-only).
 * - api_key: the same; the capability refuses a session token (documented as key-only).
 * - payment_or_workspace: a bearer credential acts on its workspace; a payment credential, or
 *   none at all, is a caller without an account who pays.
 * - optional_workspace: a bearer credential acts on its workspace (present but invalid: 401); no
 *   Authorization header at all is a caller without an account (the MCP endpoint).
 * - operator, cron: the deployment's OPERATOR_TOKEN or CRON_SECRET as a bearer token.
 * - public_or_operator: anyone; a caller sending OPERATOR_TOKEN as a bearer token is the operator,
 *   whom the handler tells more (`operator: true`). Any other Authorization, or none, is a public
 *   caller, never a 401: a monitor's stray header must not turn a readiness probe into a refusal.
 * - stripe_signature: the capability verifies Stripe's signature of the raw body.
 * - public: anyone.
 * - dashboard: the dashboard's sign-in cookie (next-auth), for the dashboard's own routes outside
 *   /api (file downloads and uploads); a write must come from the app's own origin. Never an API operation.
 */
export type AuthMode =
  | "workspace"
  | "session"
  | "api_key"
  | "payment_or_workspace"
  | "optional_workspace"
  | "operator"
  | "public_or_operator"
  | "cron"
  | "stripe_signature"
  | "public"
  | "dashboard";

export const HTTP_METHODS = ["get", "post", "put", "patch", "delete"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/**
 * What a route needs from a request: its auth mode (checked by the wrapper first), then in
 * runOperation's order (lib/api/pipeline.ts): scope, write budget, body, query.
 */
export type RouteSpec = {
  auth: AuthMode;
  /** The route's path pattern (/api/links/{id}): what its log lines name. Operations must have one. */
  path?: string;
  /**
   * What an app connected with OAuth needs to call it: a scope (checked right after
   * authentication, 403 without it), "any" (every connected app; the operation checks finer, as
   * the MCP server does per tool), or nothing: no connected app may call it.
   */
  scope?: Scope | "any";
  /** Counts against the caller's write budget (429 when spent). */
  write?: boolean;
  /** A JSON body, validated with this schema. */
  body?: z.ZodType;
  /**
   * An OAuth door: a body that is not JSON or does not validate is answered 400 in OAuth's shape,
   * `{error: <this code>, error_description: <the sentence>}` (RFC 7591 §3.2.2, RFC 6749 §5.2).
   */
  invalidBodyError?: string;
  /** An HTML form body (application/x-www-form-urlencoded), validated with this schema. */
  form?: z.ZodType;
  /** The body as text, unparsed, up to this many bytes (a signed webhook verifies the exact bytes). */
  rawBodyMaxBytes?: number;
  /** The query string, validated with this schema. */
  query?: z.ZodObject;
  /**
   * Read by pages of any origin (browser-based agent platforms): every answer carries
   * `Access-Control-Allow-Origin: *`, never credentials, and OPTIONS answers the preflight
   * (lib/http/cross-origin.ts). Only for doors that take no cookie.
   */
  crossOrigin?: true;
};

/** A file whose content is a JSON value: its media type and what it holds. */
export type StructuredUpload = { type: string; schema: z.ZodType };

/** A header or path parameter, as the document lists it; every one is a string. */
export type ParameterSpec = { name: string; in: "path" | "header"; required: boolean; description: string };

/** Revalidating a download: with a current ETag the answer is 304 without a body. */
export const IF_NONE_MATCH_PARAMETER: ParameterSpec = {
  name: "If-None-Match",
  in: "header",
  required: false,
  description: "The ETag of a copy you hold; when it is current the answer is 304 without a body",
};

/** A response: its body's schema (several: one of them) and the named response headers it carries. */
export type ResponseSpec = {
  description: string;
  body?: z.ZodType | readonly z.ZodType[];
  /** A file instead of JSON: the media types it may come as. */
  files?: readonly string[];
  /** Header name → the name of its description in the document's components.headers. */
  headers?: Readonly<Record<string, ResponseHeader>>;
  /** The body is the answer of another protocol's machinery (the MCP SDK's transport), not a value the handler gives. */
  transport?: "mcp";
};

type ResponseHeaders = NonNullable<ResponseSpec["headers"]>;

export type ResponseHeader =
  | "PaymentChallenge"
  | "PaymentRequired"
  | "PaymentReceipt"
  | "PaymentResponse"
  | "WWWAuthenticate"
  | "RetryAfter"
  | "RateLimitPolicy"
  | "RateLimit"
  | "ETag"
  | "DownloadCacheControl"
  | "ContentDisposition"
  | "Location";

/**
 * One API operation, declared once beside its capability: the route wrapper validates with it
 * and the OpenAPI document is generated from it.
 */
export type OperationSpec = RouteSpec & {
  method: HttpMethod;
  /** The path as OpenAPI writes it: /api/links/{id}. */
  path: string;
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  parameters?: readonly ParameterSpec[];
  /**
   * The capability reads the body itself as a file of one of these media types (an image upload), each a
   * string of bytes; a structured one (a JSON export) names the schema of what it holds, which the
   * document shows and the capability's own reader checks.
   */
  uploads?: readonly (string | StructuredUpload)[];
  /** Descriptions of query parameters that the query schema does not carry. */
  queryDescriptions?: Readonly<Record<string, string>>;
  responses: Readonly<Record<number, ResponseSpec>>;
};

/**
 * Declares an operation; its literal type is kept, so a route handler's replies are checked
 * against its responses (lib/http/reply.ts).
 */
export function defineOperation<const Spec extends OperationSpec>(spec: Spec): Spec {
  return spec;
}

/** The helpers below keep each body's schema in the type: the handler's reply for that status is checked against it. */
export function ok<const Body extends NonNullable<ResponseSpec["body"]>>(
  description: string,
  body: Body,
): { description: string; body: Body } {
  return { description, body };
}

/** A failure: the `{ error }` body. */
export function failure(
  description: string,
  headers?: ResponseHeaders,
): { description: string; body: typeof errorSchema; headers?: ResponseHeaders } {
  return { description, body: errorSchema, ...(headers && { headers }) };
}

/** A 402 whose body names the way forward in pay. */
export function paymentRequired(description: string): { description: string; body: typeof paymentRequiredSchema } {
  return { description, body: paymentRequiredSchema };
}

/** A 402 carrying a machine-payment challenge (MPP and x402) in its headers: the capability writes the whole answer. */
export function paymentChallenge(description: string) {
  return {
    description,
    body: paymentRequiredSchema,
    headers: { "WWW-Authenticate": "PaymentChallenge", "PAYMENT-REQUIRED": "PaymentRequired" },
  } as const satisfies ResponseSpec;
}

export const RATE_LIMIT_HEADERS = {
  "Retry-After": "RetryAfter",
  "RateLimit-Policy": "RateLimitPolicy",
  RateLimit: "RateLimit",
} as const;

/** A file download: the file itself as the body, with the headers that make a re-download cheap. */
export function download(
  description: string,
  mediaTypes: readonly string[],
  attachment: boolean,
): { description: string; files: readonly string[]; headers: ResponseHeaders } {
  return {
    description,
    files: mediaTypes,
    headers: {
      ETag: "ETag",
      "Cache-Control": "DownloadCacheControl",
      ...(attachment && { "Content-Disposition": "ContentDisposition" }),
    },
  };
}

export const NOT_MODIFIED = {
  description: "The If-None-Match ETag is current: nothing to download.",
  headers: { ETag: "ETag" },
} as const satisfies ResponseSpec;
