import * as abuse from "@/lib/abuse/operations";
import * as analytics from "@/lib/analytics/operations";
import * as billing from "@/lib/billing/operations";
import { config } from "@/lib/config";
import * as domains from "@/lib/domains/operations";
import * as escrow from "@/lib/escrow/operations";
import * as linkExports from "@/lib/exports/operations";
import * as health from "@/lib/health/operations";
import { MAX_JSON_BODY_BYTES } from "@/lib/http/body";
import {
  type AuthMode,
  failure,
  type HttpMethod,
  type OperationSpec,
  RATE_LIMIT_HEADERS,
  type ResponseSpec,
} from "@/lib/http/operation";
import { SCOPE_WORDING } from "@/lib/http/scopes";
import * as imports from "@/lib/imports/operations";
import * as links from "@/lib/links/operations";
import * as logos from "@/lib/logos/operations";
import * as mcp from "@/lib/mcp/operations";
import * as members from "@/lib/members/operations";
import * as oauth from "@/lib/oauth/operations";
import { paymentDiscovery } from "@/lib/payments/gateway";
import * as payments from "@/lib/payments/operations";
import * as qr from "@/lib/qr/operations";
import * as resolution from "@/lib/resolution/operations";
import * as tags from "@/lib/tags/operations";
import * as utm from "@/lib/utm/operations";
import * as webhooks from "@/lib/webhooks/operations";
import * as workspaces from "@/lib/workspaces/operations";
import type {
  HeaderObject,
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  RequestBodyObject,
  ResponseObject,
  SchemaObject,
  SecurityRequirementObject,
  ServerObject,
  TagObject,
} from "openapi3-ts/oas31";
import { z } from "zod";
import * as meta from "./operations";

export const API_VERSION = "2026-08-21";

/**
 * The capabilities' operations modules. Every operation one of them exports is served, validated
 * and documented; tests/project/routes.test.ts fails on an operations module missing here and on
 * a route without its operation.
 */
const OPERATION_MODULES = [
  abuse,
  analytics,
  billing,
  domains,
  escrow,
  health,
  imports,
  linkExports,
  links,
  logos,
  mcp,
  members,
  meta,
  oauth,
  payments,
  qr,
  resolution,
  tags,
  utm,
  webhooks,
  workspaces,
];

const METHOD_ORDER: readonly HttpMethod[] = ["get", "post", "put", "patch", "delete"];

/** Every operation of the API, by path and then method (the document's order). */
export const OPERATIONS: readonly OperationSpec[] = OPERATION_MODULES.flatMap(operationsIn).sort(
  (a, b) => a.path.localeCompare(b.path) || METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method),
);

/** The operation declarations a module exports (beside them: schemas, parameters, constants). */
export function operationsIn(module: Record<string, unknown>): OperationSpec[] {
  return Object.values(module).filter(isOperation);
}

function isOperation(value: unknown): value is OperationSpec {
  return typeof value === "object" && value !== null && "operationId" in value && "responses" in value;
}

/**
 * What `x-credentials` says: which bearer credentials an operation accepts (OpenAPI's one bearer
 * scheme cannot tell the workspace credentials apart); operator and cron are the deployment's secrets.
 */
export type Credentials =
  | "api_key_or_session"
  | "optional_api_key_or_session"
  | "api_key"
  | "session"
  | "none"
  | "operator"
  | "optional_operator"
  | "cron"
  | "stripe_signature";

const CREDENTIALS: Record<AuthMode, Credentials> = {
  workspace: "api_key_or_session",
  payment_or_workspace: "api_key_or_session",
  optional_workspace: "optional_api_key_or_session",
  session: "session",
  api_key: "api_key",
  public: "none",
  operator: "operator",
  public_or_operator: "optional_operator",
  cron: "cron",
  stripe_signature: "stripe_signature",
  // The dashboard's cookie routes live outside /api and are no operation; a signed-in person is a session.
  dashboard: "session",
};

export type JsonSchema = z.core.JSONSchema.JSONSchema;

/** OpenAPI's operation, with what this document always fills in and its two extensions. */
export type ApiOperation = Omit<OperationObject, "parameters" | "requestBody" | "responses"> & {
  operationId: string;
  summary: string;
  description: string;
  security: SecurityRequirementObject[];
  parameters: (ApiParameter | ReferenceObject)[];
  requestBody?: RequestBodyObject;
  responses: Record<string, ResponseObject>;
  "x-credentials": Credentials;
  "x-payment"?: ReturnType<typeof paymentExtension>;
  "x-payment-info"?: Record<string, unknown>;
};

export type ApiParameter = Omit<ParameterObject, "schema"> & { schema: JsonSchema };

/** OpenAPI's document, with what this one always fills in; schemas as zod writes them (JSON Schema 2020-12). */
export type ApiDocument = Omit<OpenAPIObject, "paths" | "components" | "servers"> & {
  servers: ServerObject[];
  paths: Record<string, Partial<Record<HttpMethod, ApiOperation>>>;
  components: {
    schemas: Record<string, JsonSchema>;
    securitySchemes: NonNullable<NonNullable<OpenAPIObject["components"]>["securitySchemes"]>;
    parameters: Record<string, ApiParameter>;
    headers: Record<string, HeaderObject>;
  };
};

const BEARER: SecurityRequirementObject[] = [{ bearerAuth: [] }];

const SECURITY: Record<Credentials, SecurityRequirementObject[]> = {
  api_key_or_session: BEARER,
  optional_api_key_or_session: [...BEARER, {}],
  api_key: BEARER,
  session: BEARER,
  none: [],
  operator: [{ operatorAuth: [] }],
  optional_operator: [{ operatorAuth: [] }, {}],
  cron: [{ cronAuth: [] }],
  stripe_signature: [],
};

const TAGS: TagObject[] = [
  { name: "Links", description: "Create, read, repoint, archive and restore permanent short links." },
  { name: "QR codes", description: "A link's QR artwork, and the centre logos it can carry." },
  {
    name: "Domains",
    description: "Short links on the workspace's own hostnames: adding one, its DNS check, and the TLS provider's question.",
  },
  { name: "Analytics", description: "Scan counts by day, hour, country, device, browser, OS, referrer, source and link." },
  {
    name: "API keys",
    description:
      "Mint, rotate and revoke the workspace's API key; recover a machine account's key by signing in with its wallet.",
  },
  { name: "Workspaces", description: "Workspaces, their members and roles, and invitations by e-mail." },
  {
    name: "Billing",
    description:
      "Subscriptions in Australian dollars: checkout, the billing portal, the account's tier and quota, and Stripe's webhook.",
  },
  {
    name: "Webhooks",
    description: "Signed, retried messages (Standard Webhooks) about the workspace's links, domains, members and imports.",
  },
  {
    name: "Escrow",
    description:
      "A signed copy of every code, which anyone can verify and serve without this service, and the keys it is signed with.",
  },
  { name: "Abuse", description: "Reporting abusive links, and the operator's review of them." },
  {
    name: "Agents",
    description: "The MCP server: the same capabilities as tools, and a paid tool that buys a link without an account.",
  },
  {
    name: "OAuth",
    description:
      "OAuth 2.1 for agents (the MCP authorization specification): registration, authorization with PKCE, tokens, connected apps.",
  },
  { name: "Operations", description: "Jobs the deployment runs on a schedule." },
  { name: "Meta", description: "This description of the API." },
];

const JSON_MEDIA_TYPE = "application/json";
const FORM_MEDIA_TYPE = "application/x-www-form-urlencoded";

/** An operation a connected app may call also accepts an OAuth access token with its scope (every token for "any"). */
function withOAuth(spec: OperationSpec, security: SecurityRequirementObject[]): SecurityRequirementObject[] {
  if (!spec.scope) return security;
  const oauth = { oauth: spec.scope === "any" ? [] : [spec.scope] };
  const optional = security.some((requirement) => Object.keys(requirement).length === 0);
  const named = security.filter((requirement) => Object.keys(requirement).length > 0);
  return [...named, oauth, ...(optional ? [{}] : [])];
}

export function openApiDocument(): ApiDocument {
  const { BASE_URL, API_KEY_PREFIX } = config();
  const schemas = new SchemaCollector();
  return {
    openapi: "3.1.1",
    info: { title: "Permalink API", version: API_VERSION, description: apiDescription() },
    "x-service-info": {
      categories: ["links", "qr-codes"],
      docs: { homepage: BASE_URL, apiReference: `${BASE_URL}/docs`, llms: `${BASE_URL}/llms.txt` },
    },
    servers: [{ url: BASE_URL, description: "this deployment" }],
    tags: TAGS,
    paths: paths(schemas),
    components: {
      schemas: schemas.convert(),
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description:
            `An API key (\`${API_KEY_PREFIX}_…\`) or a session JWT from the dashboard's identity provider. ` +
            `Both resolve to the same workspace and behave identically, except that only a session token can ` +
            `claim or revoke a key, and only a key can rotate itself.`,
        },
        oauth: {
          type: "oauth2",
          description:
            "An access token from OAuth 2.1 (authorization code with PKCE S256; dynamic registration at " +
            "/api/oauth/register; metadata at /.well-known/oauth-authorization-server), acting as the person who " +
            "allowed it, on the workspace they chose, within the scopes they allowed and their role.",
          flows: {
            authorizationCode: {
              authorizationUrl: `${BASE_URL}/api/oauth/authorize`,
              tokenUrl: `${BASE_URL}/api/oauth/token`,
              refreshUrl: `${BASE_URL}/api/oauth/token`,
              scopes: { ...SCOPE_WORDING },
            },
          },
        },
        operatorAuth: {
          type: "http",
          scheme: "bearer",
          description: "The deployment's OPERATOR_TOKEN, held by the people who review abuse.",
        },
        cronAuth: {
          type: "http",
          scheme: "bearer",
          description: "The deployment's CRON_SECRET, which Vercel Cron sends with each scheduled call.",
        },
        paymentAuth: {
          type: "http",
          scheme: "payment",
          description:
            "A machine payment answering the 402 challenge: an MPP credential (`Authorization: Payment " +
            "<credential>`), or an x402 payload (`PAYMENT-SIGNATURE`, also accepted as `Authorization: " +
            "Payment`). No account needed.",
        },
      },
      parameters: { WorkspaceId: WORKSPACE_ID_PARAMETER },
      headers: RESPONSE_HEADERS,
    },
  };
}

function apiDescription(): string {
  return [
    "Permanent short links and QR codes. A code that has been issued never stops resolving: not when " +
      "its destination changes, not when a subscription lapses, not when the link is archived.",
    "Every new link starts in quarantine (status 1): it resolves normally, but each resolution runs " +
      "a live safety check until the link is released (three clean checks and at least seven days " +
      "old). Destinations on internal or private addresses, cloud metadata endpoints, or carrying " +
      "userinfo are refused.",
    "A link whose destination a live check finds malicious, or that an operator blocks, goes to " +
      "abuse (status 2): it no longer redirects, and its short URL shows a warning page with the " +
      "reason. Abuse reports alone never block a link: they trigger a live check and queue the link " +
      "for an operator.",
    'Every failure has the body `{ "error": string }` with a real HTTP status code; the string is a ' +
      "sentence for a human, not something to switch on. Unknown paths under /api answer 404 with the " +
      "same body.",
    "Creating and editing links with an API key or session token needs an active subscription " +
      "(billed in Australian dollars: starter 19 a month with 100 new links per billing cycle, or " +
      "unlimited 49 a month or 490 a year). Without one they answer 402 with a PaymentRequired body " +
      "whose pay field names the way forward; signing in, listing, archiving, the billing portal and " +
      "the resolution of every existing link never depend on it.",
    "An agent without an account buys one permanent link by answering the HTTP 402 payment challenge " +
      "of POST /api/links (MPP or x402, see x-payment and /docs/payments); its first paid link also " +
      "returns an API key for its machine account.",
  ].join("\n\n");
}

function paths(schemas: SchemaCollector): ApiDocument["paths"] {
  const result: ApiDocument["paths"] = {};
  for (const spec of OPERATIONS) {
    result[spec.path] ??= {};
    result[spec.path]![spec.method] = operationObject(spec, schemas);
  }
  return result;
}

/** The declaration, plus what every operation of its kind shares: auth failures, 413 on bodies, 429 on writes, 500. */
function operationObject(spec: OperationSpec, schemas: SchemaCollector): ApiOperation {
  const credentials = CREDENTIALS[spec.auth];
  const workspaceBearer =
    credentials === "api_key_or_session" ||
    credentials === "optional_api_key_or_session" ||
    credentials === "api_key" ||
    credentials === "session";
  const declared: Record<string, ResponseSpec> = { ...spec.responses, ...AUTH_FAILURES[credentials], 500: INTERNAL_FAILURE };
  if (spec.body) declared[413] = failure(`The request body is larger than ${MAX_JSON_BODY_BYTES / 1024} KiB.`);
  if (spec.write) declared[429] = spec.auth === "public" ? clientWriteLimit() : tooManyWrites();
  const payable = spec.auth === "payment_or_workspace";
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tags: [spec.tag],
    security: withOAuth(spec, payable ? [...SECURITY[credentials], { paymentAuth: [] }, {}] : SECURITY[credentials]),
    "x-credentials": credentials,
    ...(payable && { "x-payment": paymentExtension() }),
    ...(payable && paymentInfo(spec.path)),
    parameters: [
      ...(workspaceBearer ? [ref("parameters", "WorkspaceId")] : []),
      ...declaredParameters(spec, "path"),
      ...(spec.query ? queryParameters(spec.query, spec.queryDescriptions ?? {}) : []),
      ...declaredParameters(spec, "header"),
    ],
    ...(spec.body && { requestBody: { required: true, content: jsonContent(schemas.reference(spec.body, "input")) } }),
    ...(spec.uploads && { requestBody: { required: true, content: uploadContent(spec.uploads, schemas) } }),
    ...(spec.form && {
      requestBody: { required: true, content: { [FORM_MEDIA_TYPE]: { schema: schemas.reference(spec.form, "input") } } },
    }),
    responses: Object.fromEntries(
      Object.entries(declared).map(([status, response]) => [status, responseObject(response, schemas)]),
    ),
  };
}

function responseObject(response: ResponseSpec, schemas: SchemaCollector): ResponseObject {
  const headers =
    response.headers &&
    Object.fromEntries(Object.entries(response.headers).map(([name, component]) => [name, ref("headers", component)]));
  return {
    description: response.description,
    ...(headers && { headers }),
    ...((response.body !== undefined || response.files) && {
      // A response may come as JSON or, on request, as a file of the same rows (analytics as CSV).
      content: {
        ...(response.body !== undefined && jsonContent(bodySchema(response.body, schemas))),
        ...(response.files && fileContent(response.files)),
      },
    }),
  };
}

function bodySchema(body: NonNullable<ResponseSpec["body"]>, schemas: SchemaCollector): SchemaObject | ReferenceObject {
  if (!Array.isArray(body)) return schemas.reference(body as z.ZodType, "output");
  return { oneOf: body.map((schema) => schemas.reference(schema, "output")) };
}

/** mppx's discovery metadata (`x-payment-info`), when this deployment takes machine payments. */
function paymentInfo(path: string): Pick<ApiOperation, "x-payment-info"> {
  const info = paymentDiscovery(path);
  return info ? { "x-payment-info": info } : {};
}

/** The price and the ways to pay, from the configuration (the recipient is named in each challenge). */
function paymentExtension(): {
  protocols: ("mpp" | "x402")[];
  price: string;
  currency: string;
  network: string;
  asset: string;
  challenge: string;
  docs: string;
} {
  const { LINK_PRICE, PAYMENT_ASSET_NAME, PAYMENT_NETWORK, PAYMENT_ASSET, BASE_URL } = config();
  return {
    protocols: ["mpp", "x402"],
    price: LINK_PRICE,
    currency: PAYMENT_ASSET_NAME,
    network: PAYMENT_NETWORK,
    asset: PAYMENT_ASSET,
    challenge:
      "402 carrying WWW-Authenticate: Payment (MPP, method evm, intent charge: an EIP-3009 " +
      "authorization) and PAYMENT-REQUIRED (x402 version 2, scheme exact); retry with Authorization: " +
      "Payment or PAYMENT-SIGNATURE.",
    docs: `${BASE_URL}/docs/payments`,
  };
}

function tooManyWrites(): ResponseSpec {
  return failure(
    `Too many writes this minute for this workspace (limit ${config().WRITE_RATE_LIMIT_PER_MINUTE} a ` +
      `minute, shared by its members and its key).`,
    RATE_LIMIT_HEADERS,
  );
}

/** Callers without an account share one write budget per client address. */
function clientWriteLimit(): ResponseSpec {
  return failure(
    `Too many writes this minute from your address (limit ${config().WRITE_RATE_LIMIT_PER_MINUTE} a minute).`,
    RATE_LIMIT_HEADERS,
  );
}

const UNAUTHORIZED = failure(
  "No valid API key or session token was sent, or X-Workspace-Id names a workspace you are not a " +
    "member of (decided before anything else about the request).",
  { "WWW-Authenticate": "WWWAuthenticate" },
);

/** A deployment secret: wrong or missing is 401; a deployment that never set it answers 503. */
function deploymentSecretFailures(variable: string): Record<string, ResponseSpec> {
  return {
    401: failure(`The Authorization header is not \`Bearer <${variable}>\`.`, { "WWW-Authenticate": "WWWAuthenticate" }),
    503: failure(`${variable} is not set on this deployment, so the operation is switched off.`),
  };
}

const AUTH_FAILURES: Record<Credentials, Record<string, ResponseSpec>> = {
  api_key_or_session: { 401: UNAUTHORIZED },
  optional_api_key_or_session: { 401: UNAUTHORIZED },
  api_key: { 401: UNAUTHORIZED },
  session: { 401: UNAUTHORIZED },
  none: {},
  operator: deploymentSecretFailures("OPERATOR_TOKEN"),
  // Anything but the operator token is a public caller: nothing is refused.
  optional_operator: {},
  cron: deploymentSecretFailures("CRON_SECRET"),
  stripe_signature: {
    400: failure(
      "The Stripe-Signature header is missing, or does not match the payload and STRIPE_WEBHOOK_SECRET, or is too old.",
    ),
    503: failure("This deployment does not bill through Stripe."),
  },
};

const INTERNAL_FAILURE = failure("Something went wrong on the service's side; the request was not completed.");

const RESPONSE_HEADERS: Record<string, HeaderObject> = {
  PaymentChallenge: {
    description:
      'The MPP challenge: `Payment id=…, realm=…, method="evm", intent="charge", request=…, expires=…, ' +
      "opaque=…` (request: price, asset, recipient and chain, covered by the id's HMAC; opaque: a " +
      "hash of the destination and the slug; expires within five minutes).",
    schema: { type: "string" },
  },
  PaymentRequired: {
    description:
      "The x402 version 2 challenge: base64 JSON `{x402Version: 2, resource, accepts: [{scheme: " +
      '"exact", network, amount, asset, payTo, maxTimeoutSeconds, extra}]}`.',
    schema: { type: "string" },
  },
  PaymentReceipt: {
    description:
      'On a paid 201: base64url JSON `{status: "success", method: "evm", reference, timestamp}`; ' +
      "reference is the settlement transaction, also the body's receipt.",
    schema: { type: "string" },
  },
  PaymentResponse: {
    description: "On a 201 paid with x402: base64 JSON `{success: true, transaction, network, payer}`.",
    schema: { type: "string" },
  },
  WWWAuthenticate: {
    description:
      'The Bearer challenge: `Bearer realm="api", resource_metadata="…/.well-known/oauth-protected-resource/api/mcp"`, ' +
      'with `error="invalid_token"` when a token was sent and is not (or no longer) valid.',
    schema: { type: "string" },
  },
  RetryAfter: { description: "Seconds until the write budget refills.", schema: { type: "integer", minimum: 1 } },
  RateLimitPolicy: {
    description: "The write policy, as in the IETF RateLimit headers draft: quota `q` per window `w` seconds.",
    schema: { type: "string" },
  },
  RateLimit: { description: "Remaining writes `r` and seconds until reset `t`.", schema: { type: "string" } },
  ETag: {
    description: "A hash of the content; send it back in If-None-Match to get 304 while it is current.",
    schema: { type: "string" },
  },
  DownloadCacheControl: {
    description: "`private, no-cache`: a client may keep a copy but revalidates it (If-None-Match) before use.",
    schema: { type: "string" },
  },
  ContentDisposition: {
    description: '`attachment; filename="…"` with a file name that says what the file is.',
    schema: { type: "string" },
  },
  Location: { description: "Where the browser goes next.", schema: { type: "string" } },
};

const WORKSPACE_ID_PARAMETER: ApiParameter = {
  name: "X-Workspace-Id",
  in: "header",
  required: false,
  description:
    "Selects the workspace when a session token can reach several. An API key belongs to exactly one " +
    "workspace and ignores it. Naming a workspace you are not a member of gives 401.",
  schema: { type: "string" },
};

function declaredParameters(spec: OperationSpec, where: "path" | "header"): ApiParameter[] {
  return (spec.parameters ?? [])
    .filter((parameter) => parameter.in === where)
    .map((parameter) => ({ ...parameter, schema: { type: "string" } }));
}

function queryParameters(schema: z.ZodObject, descriptions: Readonly<Record<string, string>>): ApiParameter[] {
  const converted = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input" });
  const required = new Set(converted.required ?? []);
  return Object.entries(converted.properties ?? {}).map(([name, property]) => {
    const { description, ...propertySchema } = property as JsonSchema;
    return {
      name,
      in: "query",
      required: required.has(name),
      description: descriptions[name] ?? description,
      schema: propertySchema,
    };
  });
}

function jsonContent(schema: SchemaObject | ReferenceObject) {
  return { [JSON_MEDIA_TYPE]: { schema } };
}

function fileContent(mediaTypes: readonly string[]) {
  return Object.fromEntries(mediaTypes.map((type) => [type, fileMedia(type)]));
}

function fileMedia(type: string) {
  return { schema: { type: "string", contentMediaType: type } as SchemaObject };
}

/** A file is a string of its media type; a structured one (JSON) is the value its schema describes, as a client sends it. */
function uploadContent(uploads: NonNullable<OperationSpec["uploads"]>, schemas: SchemaCollector) {
  return Object.fromEntries(
    uploads.map((upload) =>
      typeof upload === "string"
        ? [upload, fileMedia(upload)]
        : [upload.type, { schema: schemas.reference(upload.schema, "input") }],
    ),
  );
}

function ref(section: "schemas" | "parameters" | "headers", name: string): ReferenceObject {
  return { $ref: `#/components/${section}/${name}` };
}

/**
 * The schemas the operations name, each converted once under its `.meta({ id })`: request bodies
 * as the handlers parse them, response bodies as they are sent. Conversion goes through a
 * registry of just these schemas, not z.globalRegistry, which holds whatever other modules of the
 * process happened to load, so the document would vary with them.
 */
class SchemaCollector {
  private readonly used = { input: new Set<z.ZodType>(), output: new Set<z.ZodType>() };

  /** A reference to the schema's component; a schema without an id is written in place. */
  reference(schema: z.ZodType, io: "input" | "output"): SchemaObject | ReferenceObject {
    if (typeof schema.meta()?.id !== "string")
      return withoutDialectKeywords(z.toJSONSchema(schema, { target: "draft-2020-12", io })) as SchemaObject;
    this.used[io].add(schema);
    return ref("schemas", schemaId(schema));
  }

  convert(): Record<string, JsonSchema> {
    return { ...convertSchemas([...this.used.output], "output"), ...convertSchemas([...this.used.input], "input") };
  }
}

function schemaId(schema: z.ZodType): string {
  const id = schema.meta()?.id;
  if (typeof id !== "string") throw new Error("A schema used in the OpenAPI document needs .meta({ id }).");
  return id;
}

function convertSchemas(schemas: z.ZodType[], io: "input" | "output"): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const schema of schemas) registry.add(schema, { id: schemaId(schema) });
  const converted = z.toJSONSchema(registry, { target: "draft-2020-12", io, uri: (id) => `#/components/schemas/${id}` });
  const { [SHARED]: shared, ...named } = converted.schemas;
  // A schema with an id that is only nested in others (a list's item) comes out under __shared; it is a component too.
  const all = { ...named, ...(shared?.$defs ?? {}) } as Record<string, JsonSchema>;
  const components = JSON.parse(
    JSON.stringify(all).replaceAll(`#/components/schemas/${SHARED}#/$defs/`, "#/components/schemas/"),
  ) as Record<string, JsonSchema>;
  return Object.fromEntries(Object.entries(components).map(([id, schema]) => [id, withoutDialectKeywords(schema)]));
}

const SHARED = "__shared";

/** Each component is part of the document, not a standalone schema resource. */
function withoutDialectKeywords(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, $id: _resourceId, ...rest } = schema;
  return rest;
}
