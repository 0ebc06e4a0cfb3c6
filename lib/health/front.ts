import type { IncomingMessage, ServerResponse } from "node:http";
import { healthAnswer } from "./service";

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const HEALTH_PATH = "/api/health";

/**
 * `npm start`'s front door answers GET and HEAD /api/health itself, with the same answer as the
 * route (lib/health/service.ts, which checks at most once a second for both), instead of handing
 * it to the application process: a load balancer's readiness probe then never waits behind the
 * application's sockets or its idle-priority CPU, which a busy instance (or slow request bodies)
 * can hold for seconds. `isOperator` tells the operator's Authorization header (the route's
 * `public_or_operator`), who is told each component. Everything else goes on to `application`.
 */
export function answeringHealth(application: Handler, isOperator: (authorization: string | undefined) => boolean): Handler {
  return (request, response) => {
    const path = request.url?.split("?", 1)[0];
    if (path !== HEALTH_PATH || (request.method !== "GET" && request.method !== "HEAD")) return application(request, response);
    request.resume();
    void healthAnswer(isOperator(request.headers.authorization)).then(
      ({ status, body }) => {
        response.writeHead(status, {
          "Cache-Control": "no-store",
          "Content-Type": "application/json; charset=utf-8",
          "X-Content-Type-Options": "nosniff",
        });
        response.end(request.method === "HEAD" ? undefined : JSON.stringify(body));
      },
      () => {
        response.writeHead(503, { "Cache-Control": "no-store", "Content-Type": "application/json; charset=utf-8" });
        response.end(JSON.stringify({ error: "This instance could not check its health." }));
      },
    );
  };
}
