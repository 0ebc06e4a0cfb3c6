import { clientNetwork, trustedAddress } from "@/lib/http/client-address";
import { deliverInvalidation, type Invalidation } from "@/lib/links/invalidation";
import { Agent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * On every answer of the application process: how many invalidations it had sent when the answer
 * was written. The front forwards the answer only once it has heard as many, so a client that
 * created a link and then visits it never meets the front's stale copy (IPC and HTTP race otherwise).
 */
export const INVALIDATIONS_SENT_HEADER = "x-permalink-invalidations-sent";

/**
 * Headers that describe one connection, not the message (RFC 9110 §7.6.1), plus Expect, which the
 * front already answered, and the front's own bookkeeping header.
 */
const HOP_BY_HOP = ["connection", "keep-alive", "proxy-connection", "upgrade", "te", "expect", INVALIDATIONS_SENT_HEADER];

/** Counts the invalidations heard from the application process, and lets an answer wait for a count. */
export class InvalidationsHeard {
  private count = 0;
  private waiting: { count: number; resume(): void }[] = [];

  deliver(invalidation: Invalidation): void {
    deliverInvalidation(invalidation);
    this.count++;
    const due = this.waiting.filter((waiter) => waiter.count <= this.count);
    this.waiting = this.waiting.filter((waiter) => waiter.count > this.count);
    for (const waiter of due) waiter.resume();
  }

  /** Resolves once `count` invalidations have been heard (at once when they have). */
  reached(count: number): Promise<void> | null {
    if (count <= this.count) return null;
    return new Promise((resume) => this.waiting.push({ count, resume }));
  }
}

/**
 * Proxies a request to the application on a loopback port over kept-alive sockets, bodies streamed
 * both ways. An idle kept-alive socket can be closed by the application just as the front reuses
 * it (the keep-alive race): the request then fails without having reached the application, so a
 * request without a body that is safe to repeat (GET, HEAD) is sent once more on a new socket
 * rather than answered 502.
 */
export function proxyToApplication(port: number, heard: InvalidationsHeard, sockets = APPLICATION_SOCKETS): Handler {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const inFlight = new NetworkShares(Math.max(1, Math.floor(sockets * NETWORK_SHARE)));
  return (request, response) => {
    const network = clientNetwork(
      trustedAddress(header(request, "x-forwarded-for"), header(request, "x-real-ip"), true) ?? "unknown",
    );
    if (!inFlight.take(network)) return refuseBusyNetwork(request, response);
    response.once("close", () => inFlight.give(network));
    const headers = { ...request.headers };
    for (const name of HOP_BY_HOP) delete headers[name];
    const replayable = isRepeatableWithoutBody(request);
    const send = (mayRetry: boolean) => {
      // Once the application began answering, the request reached it: never sent again.
      let answered = false;
      const upstream = httpRequest(
        { host: "127.0.0.1", port, method: request.method, path: request.url, headers, agent },
        (answer) => {
          answered = true;
          const forward = () => {
            // The socket may have failed while the answer waited for its invalidation: the client has its 502.
            if (response.headersSent || response.destroyed) return void answer.resume();
            response.writeHead(answer.statusCode ?? 502, answer.statusMessage, withoutHopByHop(answer.rawHeaders));
            answer.pipe(response);
          };
          const pending = heard.reached(Number(answer.headers[INVALIDATIONS_SENT_HEADER] ?? 0));
          if (pending) void pending.then(forward);
          else forward();
        },
      );
      upstream.on("error", (error: NodeJS.ErrnoException) => {
        if (mayRetry && !answered && upstream.reusedSocket && error.code === "ECONNRESET" && !response.destroyed)
          return send(false);
        if (!response.headersSent)
          response.writeHead(502, { "Content-Type": "text/plain; charset=utf-8" }).end("The application did not answer.");
        else response.destroy();
      });
      // An answer cut short, or a request body that will never arrive whole (the front refused a
      // slow one): the application's socket would wait for the rest forever.
      response.on("close", () => {
        if (!response.writableFinished || !request.complete) upstream.destroy();
      });
      if (replayable) upstream.end();
      else request.pipe(upstream);
    };
    send(replayable);
  };
}

/** Requests the front has at the application at once. */
const APPLICATION_SOCKETS = 256;

/**
 * The share of them one client network may hold: its requests beyond it are refused at once, so
 * slow bodies or a flood from one network leave the rest of the sockets to everyone else.
 */
const NETWORK_SHARE = 1 / 8;

/** Requests in flight per client network, each network bounded by `limit`. */
class NetworkShares {
  private readonly held = new Map<string, number>();

  constructor(private readonly limit: number) {}

  take(network: string): boolean {
    const held = this.held.get(network) ?? 0;
    if (held >= this.limit) return false;
    this.held.set(network, held + 1);
    return true;
  }

  give(network: string): void {
    const held = (this.held.get(network) ?? 1) - 1;
    if (held <= 0) this.held.delete(network);
    else this.held.set(network, held);
  }
}

function refuseBusyNetwork(request: IncomingMessage, response: ServerResponse): void {
  response.writeHead(429, {
    "Content-Type": "application/json; charset=utf-8",
    "Cache-Control": "no-store",
    "Retry-After": "1",
    Connection: "close",
  });
  response.end(JSON.stringify({ error: "Too many requests from your network are in progress; try again in a moment." }));
  request.resume();
}

function header(request: IncomingMessage, name: string): string | null {
  const value = request.headers[name];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

/**
 * The server the application process listens on for the front. It never closes a kept-alive socket
 * itself (no keep-alive, header or request timeout): only the front does, so the front never reuses
 * a socket the application is closing at that instant. The retry above mends that race for GET and
 * HEAD only, and it is wide open when the application runs at idle priority (lib/idle-process.ts):
 * Node's 5 s keep-alive timer fires, the application waits for the CPU before acting on it, the
 * front sends a PUT on the socket meanwhile, and the application then destroys the socket with the
 * request unread (measured: 6 of 31 logo uploads answered 502 while redirects kept the CPU busy).
 * The front's own server bounds how long a client may take; the application, behind it, needs no bound.
 */
export function applicationServer(): Server {
  const server = createServer();
  server.keepAliveTimeout = 0;
  server.headersTimeout = 0;
  server.requestTimeout = 0;
  return server;
}

function isRepeatableWithoutBody(request: IncomingMessage): boolean {
  const bodiless = request.headers["content-length"] === undefined && request.headers["transfer-encoding"] === undefined;
  return bodiless && (request.method === "GET" || request.method === "HEAD");
}

function withoutHopByHop(rawHeaders: string[]): string[] {
  const kept: string[] = [];
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (!HOP_BY_HOP.includes(rawHeaders[index]!.toLowerCase())) kept.push(rawHeaders[index]!, rawHeaders[index + 1]!);
  }
  return kept;
}
