import type { IncomingMessage, ServerResponse } from "node:http";
import { processSingleton } from "@/lib/process-singleton";
import { healthAnswer } from "./service";

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const HEALTH_PATH = "/api/health";

/**
 * One check serves every probe of the same second: a load balancer's, an operator's, or hundreds
 * of strangers' (the path is public), so probes cost the database and the shared store at most one
 * ping each a second.
 */
const REUSE_MS = 1000;

type Checked = { at: number; answer: ReturnType<typeof healthAnswer> };
const recentCheck = processSingleton<{ last: Checked | null }>("health.front", () => ({ last: null }));

/**
 * `npm start`'s front door answers GET and HEAD /api/health itself, with the same answer as the
 * route (lib/health/service.ts), instead of handing it to the application process: a load
 * balancer's readiness probe then never waits behind the application's sockets or its idle-priority
 * CPU, which a busy instance (or slow request bodies) can hold for seconds. Everything else goes on
 * to `application`.
 */
export function answeringHealth(application: Handler): Handler {
  return (request, response) => {
    const path = request.url?.split("?", 1)[0];
    if (path !== HEALTH_PATH || (request.method !== "GET" && request.method !== "HEAD")) return application(request, response);
    request.resume();
    void recentAnswer().then(
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

function recentAnswer(): ReturnType<typeof healthAnswer> {
  const holder = recentCheck.get();
  // Monotonic: a clock stepped back must not keep one answer for longer.
  const now = performance.now();
  if (!holder.last || now - holder.last.at >= REUSE_MS) holder.last = { at: now, answer: healthAnswer() };
  return holder.last.answer;
}
