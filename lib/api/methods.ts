import { CROSS_ORIGIN_HEADERS, preflightHeaders } from "@/lib/http/cross-origin";
import type { RouteSpec } from "@/lib/http/operation";
import { json } from "@/lib/http/respond";
import { servedAndLogged } from "./request-log";

/** The methods a route file may serve; Next answers HEAD with GET's handler. */
const ROUTE_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type RouteMethod = (typeof ROUTE_METHODS)[number];

/**
 * A handler that serves no operation: 405 for a method the route does not take, or OPTIONS (for a
 * door read across origins, the CORS preflight's answer).
 */
export type OtherMethodHandler = ((request: Request) => Promise<Response>) & { allow: readonly string[] };

/**
 * What a route answers to the methods it does not serve, given the handlers it does: 405 with an
 * `Allow` header and an `{ error }` sentence (Next's own 405 has an empty body and no `Allow`),
 * and OPTIONS listing the same methods. When the served handlers are read across origins
 * (`crossOrigin` in their declaration), OPTIONS is also the CORS preflight's answer and the 405
 * is readable from any origin. A route file exports the names it does not define:
 *
 *     export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
 */
export function otherMethods(served: Partial<Record<RouteMethod, unknown>>): Record<RouteMethod | "OPTIONS", OtherMethodHandler> {
  const allow = allowedMethods(served);
  const crossOrigin = readAcrossOrigins(served);
  const allowHeader = { Allow: allow.join(", "), ...(crossOrigin && CROSS_ORIGIN_HEADERS) };
  const optionsHeaders = { Allow: allow.join(", "), ...(crossOrigin && preflightHeaders(allow)) };
  const route = routePattern(served);
  const notAllowed = Object.assign(
    (request: Request) =>
      servedAndLogged(request, route ?? new URL(request.url).pathname, async () =>
        json(
          {
            error: `${request.method} is not an operation of ${new URL(request.url).pathname}; it takes ${sentenceList(allow)}.`,
          },
          405,
          allowHeader,
        ),
      ),
    { allow },
  );
  const options = Object.assign(
    async () => new Response(null, { status: 204, headers: { ...optionsHeaders, "Cache-Control": "no-store" } }),
    { allow },
  );
  return { GET: notAllowed, POST: notAllowed, PUT: notAllowed, PATCH: notAllowed, DELETE: notAllowed, OPTIONS: options };
}

/** The path pattern the served handlers were declared with (a route outside the wrapper, llms.txt, has a fixed path). */
function routePattern(served: Partial<Record<RouteMethod, unknown>>): string | undefined {
  return Object.values(served)
    .map((handler) => (handler as { spec?: { path?: string } } | undefined)?.spec?.path)
    .find((path) => path !== undefined);
}

/** Whether the served handlers' declaration says pages of other origins read them. */
function readAcrossOrigins(served: Partial<Record<RouteMethod, unknown>>): boolean {
  return Object.values(served).some((handler) => (handler as { spec?: RouteSpec } | undefined)?.spec?.crossOrigin === true);
}

function allowedMethods(served: Partial<Record<RouteMethod, unknown>>): string[] {
  const methods: string[] = ROUTE_METHODS.filter((method) => served[method]);
  if (served.GET) methods.splice(1, 0, "HEAD");
  return [...methods, "OPTIONS"];
}

function sentenceList(items: readonly string[]): string {
  return items.length === 1 ? items[0]! : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}
