import type { IncomingMessage, ServerOptions, ServerResponse } from "node:http";

type NodeHandler = (request: IncomingMessage, response: ServerResponse) => void;

export type BodyRate = {
  /** How long a body may take to get going before its pace counts. */
  graceMs: number;
  /** The slowest average pace a body may keep after the grace, in bytes a second. */
  minBytesPerSecond: number;
  /** How often the pace is checked. */
  checkEveryMs: number;
};

/**
 * 16 KiB a second after 10 s: a 20 MiB import still fits on a 150 kbit/s line, while a body
 * trickled a byte at a time holds its connection (and the application's socket behind it) for
 * about 10 s instead of Node's 300 s request timeout.
 */
export const DEFAULT_BODY_RATE: BodyRate = { graceMs: 10_000, minBytesPerSecond: 16 * 1024, checkEveryMs: 1000 };

/**
 * A front server's bounds on slow clients: headers within 10 s of the request's first byte (Node's
 * default is 60 s; Node checks every `connectionsCheckingInterval`, 30 s by default, so the bound is
 * checked each second), and bodies at a minimum pace (enforcingBodyRate) instead of one deadline for
 * the whole request, which would have to be long enough for the largest upload on the slowest line.
 */
export const FRONT_SERVER_OPTIONS = {
  headersTimeout: 10_000,
  requestTimeout: 0,
  connectionsCheckingInterval: 1000,
} as const satisfies ServerOptions;

/**
 * Answers 408 and closes the connection of a request whose body arrives slower than `rate`
 * (slowloris-style trickles that would each hold a socket to the application). Time the reader
 * spends behind (data received and not yet read) is not held against the client. Requests without
 * a body, every short-link visit among them, pass straight through.
 */
export function enforcingBodyRate(next: NodeHandler, rate: BodyRate = DEFAULT_BODY_RATE): NodeHandler {
  return (request, response) => {
    if (!hasBody(request)) return next(request, response);
    const socket = request.socket;
    const bytesAtStart = socket.bytesRead;
    let clientsTurnMs = 0;
    const timer = setInterval(() => {
      if (request.complete) return stop();
      if (request.readableLength > 0 || request.isPaused()) return;
      clientsTurnMs += rate.checkEveryMs;
      const owed = ((clientsTurnMs - rate.graceMs) / 1000) * rate.minBytesPerSecond;
      if (socket.bytesRead - bytesAtStart >= owed) return;
      stop();
      tooSlow(response, rate);
    }, rate.checkEveryMs);
    timer.unref();
    const stop = () => clearInterval(timer);
    request.once("end", stop);
    response.once("close", stop);
    next(request, response);
  };
}

function hasBody(request: IncomingMessage): boolean {
  const length = request.headers["content-length"];
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

function tooSlow(response: ServerResponse, rate: BodyRate): void {
  if (!response.headersSent) {
    const body = JSON.stringify({
      error: `The request's body arrived too slowly (under ${rate.minBytesPerSecond / 1024} KiB a second); send it again on a faster connection.`,
    });
    response.writeHead(408, {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
      Connection: "close",
    });
    response.end(body);
  }
  // The body will never be read to its end: the connection cannot carry another request.
  response.once("finish", () => response.socket?.destroy());
  if (response.writableFinished) response.socket?.destroy();
}
