import { log, withRequestContext } from "@/lib/log";
import { randomUUID } from "node:crypto";

/** An id a proxy in front may have given the request (Vercel, a load balancer): short, and only safe characters. */
const FORWARDED_ID = /^[\w.:-]{1,128}$/;

function requestId(request: Request): string {
  const forwarded = request.headers.get("x-request-id");
  return forwarded && FORWARDED_ID.test(forwarded) ? forwarded : randomUUID();
}

/**
 * Serves a request with its id, route pattern and method on every line logged meanwhile, then
 * logs one line for it: status and duration (error level for a 5xx). The id goes back to the
 * caller in `X-Request-Id`, so a report can be matched to its line.
 */
export async function servedAndLogged(request: Request, route: string, serve: () => Promise<Response>): Promise<Response> {
  const started = performance.now();
  const context = { reqId: requestId(request), route, method: request.method };
  return withRequestContext(context, async () => {
    const response = await serve();
    const line = { status: response.status, durationMs: Math.round((performance.now() - started) * 10) / 10 };
    if (response.status >= 500) log().error(line, "request failed");
    else log().info(line, "request");
    response.headers.set("X-Request-Id", context.reqId);
    return response;
  });
}
