import type { z } from "zod";
import { authenticateBearer, bearerToken } from "@/lib/auth/authenticate";
import type { Principal } from "@/lib/workspaces/types";
import { readJsonBody, validate } from "./body";
import { ApiError } from "./errors";
import { errorResponse, internalError } from "./respond";
import { enforceWriteLimit } from "./write-limit";

type RouteContext<Params> = { params: Promise<Params> };

type Handler<Body, Query, Params> = (input: {
  request: Request;
  principal: Principal;
  body: Body;
  query: Query;
  params: Params;
}) => Promise<Response>;

type RouteOptions<BodySchema, QuerySchema> = {
  /** Counts against the principal's write budget (429 when spent). */
  write?: boolean;
  body?: BodySchema;
  query?: QuerySchema;
};

/**
 * Every authenticated API route goes through here, in this order: credentials and workspace
 * membership (401), write rate limit (429), body and query validation (400), then the handler.
 * Failures become `{ error }` with a real status; nothing else reaches the client.
 */
export function apiRoute<
  BodySchema extends z.ZodType = z.ZodUndefined,
  QuerySchema extends z.ZodType = z.ZodUndefined,
  Params = Record<string, never>,
>(
  options: RouteOptions<BodySchema, QuerySchema>,
  handler: Handler<z.infer<BodySchema>, z.infer<QuerySchema>, Params>,
): (request: Request, context: RouteContext<Params>) => Promise<Response> {
  return (request, context) =>
    handleErrors(async () => {
      const principal = await authenticate(request);
      if (options.write) await enforceWriteLimit(principal);
      const body = options.body ? validate(options.body, await readJsonBody(request), "body") : undefined;
      const query = options.query ? validate(options.query, queryObject(request), "query") : undefined;
      const params = await context.params;
      return handler({ request, principal, body: body as z.infer<BodySchema>, query: query as z.infer<QuerySchema>, params });
    });
}

export async function handleErrors(work: () => Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError) return errorResponse(error);
    return internalError(error);
  }
}

async function authenticate(request: Request): Promise<Principal> {
  return authenticateBearer(request, bearerToken(request));
}

function queryObject(request: Request): Record<string, string> {
  return Object.fromEntries(new URL(request.url).searchParams);
}
