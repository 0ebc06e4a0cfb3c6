import { config } from "@/lib/config";
import { isRecordId, isSecretToken } from "@/lib/db/random";
import { bearerToken } from "@/lib/http/authorization";
import { MAX_FORM_BODY_BYTES, readJsonBody, readTextBody, validate } from "@/lib/http/body";
import { readableAcrossOrigins } from "@/lib/http/cross-origin";
import { DomainError, type ErrorCode, notFound, RESOURCE_METADATA_PATH } from "@/lib/http/errors";
import type { AuthMode, RouteSpec } from "@/lib/http/operation";
import { type HandlerResult, Reply, reply, type ReplyFunction } from "@/lib/http/reply";
import { internalError, json } from "@/lib/http/respond";
import { log } from "@/lib/log";
import { paysWithoutAccount } from "@/lib/payments/credential";
import type { Principal } from "@/lib/workspaces/types";
import type { z } from "zod";
import { authenticateBearer } from "./authenticate";
import { holdsDeploymentSecret, requireDeploymentSecret } from "./deployment-secret";
import { runOperation } from "./pipeline";
import { servedAndLogged } from "./request-log";

type RouteContext<Params> = { params: Promise<Params> };

/** `/api/links/{id}` → `{ id: string }`. */
type PathParams<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? { [Key in Name]: string } & PathParams<Rest>
  : unknown;

type ParamsOf<Spec> = Spec extends { path: infer Path extends string } ? PathParams<Path> : Record<string, string>;

/** The caller the auth mode yields: a principal for workspace credentials, null for a caller who pays. */
type CallerOf<Mode extends AuthMode> = Mode extends "workspace" | "session" | "api_key" | "dashboard"
  ? { principal: Principal }
  : Mode extends "payment_or_workspace" | "optional_workspace"
    ? { principal: Principal | null }
    : Mode extends "public_or_operator"
      ? { principal?: undefined; operator: boolean }
      : { principal?: undefined };

type BodyOf<Spec> = Spec extends { body: infer Schema extends z.ZodType }
  ? z.output<Schema>
  : Spec extends { form: infer Schema extends z.ZodType }
    ? z.output<Schema>
    : Spec extends { rawBodyMaxBytes: number }
      ? string
      : undefined;

type QueryOf<Spec> = Spec extends { query: infer Schema extends z.ZodType } ? z.output<Schema> : undefined;

export type HandlerInput<Spec extends RouteSpec, Params> = CallerOf<Spec["auth"]> & {
  request: Request;
  body: BodyOf<Spec>;
  query: QueryOf<Spec>;
  params: Params;
  /** The answer, as the operation declares it: `reply(201, link)`; a status or body it does not declare fails the type check. */
  reply: ReplyFunction<Spec>;
};

/** A route handler as Next calls it, carrying the declaration it was built from. */
export type RouteHandler<Params> = ((request: Request, context: RouteContext<Params>) => Promise<Response>) & { spec: RouteSpec };

/**
 * Every route goes through here. Authentication comes first, as the declaration's auth mode says
 * (credentials and workspace membership, or a deployment secret: 401, 503); then the operation
 * runs through runOperation (lib/api/pipeline.ts, which spells out the order): its scope, its
 * write budget, the input (body and query validation: 400, 413; the shape of the ids in the path:
 * 404, before any query sees them), the handler. Failures become `{ error }` with a real status;
 * nothing else reaches the client. Each request is logged as one line (request id, route pattern,
 * method, status, duration), and so is anything unexpected.
 */
export function apiRoute<const Spec extends RouteSpec, Params = ParamsOf<Spec>>(
  spec: Spec,
  handler: (input: HandlerInput<Spec, Params>) => Promise<HandlerResult<Spec>>,
): RouteHandler<Params> {
  const serve = async (request: Request, context: RouteContext<Params>): Promise<Response> => {
    try {
      const principal = await authenticate(spec.auth, request);
      const answer = await runOperation({
        principal,
        request,
        operation: spec,
        input: async () => {
          const body = await readBody(spec, request);
          const query = spec.query ? validate(spec.query, queryObject(request), "query") : undefined;
          return { body, query, params: recordIdParams(await context.params) };
        },
        call: ({ body, query, params }) => {
          const operator =
            spec.auth === "public_or_operator" && holdsDeploymentSecret(request.headers.get("authorization"), "operator");
          return handler({ request, principal, operator, body, query, params, reply } as unknown as HandlerInput<Spec, Params>);
        },
      });
      return answer instanceof Reply ? sent(answer) : answer;
    } catch (error) {
      if (error instanceof DomainError) return errorResponse(error);
      log().error({ err: error }, "unhandled error");
      return internalError();
    }
  };
  const answer = spec.crossOrigin
    ? async (request: Request, context: RouteContext<Params>) => readableAcrossOrigins(await serve(request, context))
    : serve;
  const route = (request: Request, context: RouteContext<Params>) =>
    servedAndLogged(request, spec.path ?? "(unnamed route)", () => answer(request, context));
  return Object.assign(route, { spec });
}

/** A reply as HTTP: its body as JSON, or no body at all (204, 202). */
function sent({ status, body, headers }: Reply): Response {
  return body === undefined ? new Response(null, { status, headers }) : json(body, status, headers);
}

/** The principal for workspace credentials; null when the mode names no workspace (or the caller pays). */
async function authenticate(mode: AuthMode, request: Request): Promise<Principal | null> {
  switch (mode) {
    case "workspace":
    case "session":
    case "api_key":
      return authenticateBearer(request, bearerToken(request));
    case "payment_or_workspace":
      return paysWithoutAccount(request) ? null : authenticateBearer(request, bearerToken(request));
    case "optional_workspace":
      return request.headers.has("authorization") ? authenticateBearer(request, bearerToken(request)) : null;
    case "operator":
    case "cron":
      requireDeploymentSecret(request, mode);
      return null;
    case "dashboard":
      return (await import("./dashboard")).dashboardRoutePrincipal(request);
    case "stripe_signature":
    case "public":
    case "public_or_operator":
      return null;
  }
}

async function readBody(spec: RouteSpec, request: Request): Promise<unknown> {
  if (spec.invalidBodyError) {
    const code = spec.invalidBodyError;
    return readBody({ ...spec, invalidBodyError: undefined }, request).catch((error: unknown) => {
      if (!(error instanceof DomainError) || error.code !== "invalid_request") throw error;
      // The details replace the body's `error` (errorResponse spreads them last): OAuth's code and the sentence.
      throw new DomainError(error.code, error.message, error.headers, { error: code, error_description: error.message });
    });
  }
  if (spec.body) return validate(spec.body, await readJsonBody(request), "body");
  if (spec.form)
    return validate(spec.form, Object.fromEntries(new URLSearchParams(await readTextBody(request, MAX_FORM_BODY_BYTES))), "body");
  if (spec.rawBodyMaxBytes !== undefined) return readTextBody(request, spec.rawBodyMaxBytes);
  return undefined;
}

/** The one place a domain error becomes an HTTP status. */
const STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  unauthenticated: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  too_large: 413,
  unsupported_media_type: 415,
  refused: 422,
  rate_limited: 429,
  provider_failed: 502,
  not_configured: 503,
};

function errorResponse(error: DomainError): Response {
  return json({ error: error.message, ...error.details }, statusOf(error), withResourceMetadata(error.headers));
}

/** A Bearer challenge names the protected resource metadata (RFC 9728 §5.1): where an OAuth client learns how to get a token. */
function withResourceMetadata(headers: Record<string, string>): Record<string, string> {
  const challenge = headers["WWW-Authenticate"];
  if (!challenge?.startsWith("Bearer ")) return headers;
  const [realm, ...rest] = challenge.slice("Bearer ".length).split(", ");
  const metadata = `resource_metadata="${config().BASE_URL}${RESOURCE_METADATA_PATH}"`;
  return { ...headers, "WWW-Authenticate": `Bearer ${[realm, metadata, ...rest].join(", ")}` };
}

/** The HTTP status of a domain error: for answers that carry several outcomes (a bulk create's items). */
export function statusOf(error: DomainError): number {
  return STATUS[error.code];
}

/**
 * Every path parameter of a route names a record by the id this service issued it (lnk_…,
 * cs_local_…), or, when it is named `token`, a secret this service issued (an invitation link's);
 * anything else names nothing, so it is a 404 before any query sees it (a NUL byte would make
 * PostgreSQL fail). The catch-all's segments (an array) are not ids.
 */
export function recordIdParams<Params>(params: Params): Params {
  for (const [name, value] of Object.entries(params ?? {})) {
    if (typeof value !== "string") continue;
    if (name === "token" ? !isSecretToken(value) : !isRecordId(value))
      throw notFound("Nothing exists at this address: the id in the path is not one this service issued.");
  }
  return params;
}

/** A parameter given once is a string; one given several times (?tag=a&tag=b) is the list of its values. */
function queryObject(request: Request): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of new URL(request.url).searchParams) {
    const earlier = query[name];
    query[name] = earlier === undefined ? value : [earlier, value].flat();
  }
  return query;
}
