import type { IncomingMessage, ServerResponse } from "node:http";
import { serveVisit, visitFor, type DoorRequest } from "./door";

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

function doorRequest(request: IncomingMessage): DoorRequest {
  const url = request.url ?? "/";
  const queryStart = url.indexOf("?");
  return {
    method: request.method ?? "GET",
    hostHeader: request.headers.host ?? null,
    pathname: queryStart === -1 ? url : url.slice(0, queryStart),
    search: queryStart === -1 ? "" : url.slice(queryStart),
    header: (name) => {
      const value = request.headers[name];
      return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
    },
    peerAddress: request.socket.remoteAddress ?? null,
  };
}

/** Appends the socket's peer to X-Forwarded-For, as a proxy does, so the app can trust the right end. */
function withPeerAddress(request: IncomingMessage): IncomingMessage {
  const peer = request.socket.remoteAddress;
  if (!peer) return request;
  const forwarded = request.headers["x-forwarded-for"];
  request.headers["x-forwarded-for"] = forwarded ? `${forwarded}, ${peer}` : peer;
  return request;
}

/**
 * The self-hosted front: answers short-link visits straight from node:http with the shared
 * resolution core, and hands every other request to the application (Next's handler).
 */
export function createFrontDoor(application: Handler): Handler {
  return (request, response) => {
    visitFor(doorRequest(request))
      .then(async (visit) => {
        if (!visit) return application(withPeerAddress(request), response);
        const { answer } = await serveVisit(visit);
        response.writeHead(answer.status, answer.headers);
        response.end(answer.body);
      })
      .catch((error) => {
        console.error("Short-link request failed:", error);
        if (!response.headersSent) response.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
        response.end("Something went wrong on our side.");
      });
  };
}
