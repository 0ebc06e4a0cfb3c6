import type { IncomingMessage, ServerResponse } from "node:http";
import { CUSTOM_DOMAIN, serveFromMemory, serveVisit, visitFor, visitNow, type DoorRequest } from "./door";
import type { Answer } from "./types";

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

function send(response: ServerResponse, answer: Answer): void {
  response.writeHead(answer.status, answer.headers);
  response.end(answer.body);
}

function fail(response: ServerResponse, error: unknown): void {
  console.error("Short-link request failed:", error);
  if (!response.headersSent) response.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
  response.end("Something went wrong on our side.");
}

/**
 * The self-hosted front: answers short-link visits straight from node:http with the shared
 * resolution core, and hands every other request to the application (Next's handler). A warm
 * visit on the short host is answered synchronously from memory; the rest take the async path.
 */
export function createFrontDoor(application: Handler): Handler {
  return (request, response) => {
    const incoming = doorRequest(request);
    let served;
    try {
      const visit = visitNow(incoming);
      if (visit === null) return application(withPeerAddress(request), response);
      served = visit === CUSTOM_DOMAIN ? undefined : serveFromMemory(visit);
    } catch (error) {
      return fail(response, error);
    }
    if (served) return send(response, served.answer);
    visitFor(incoming)
      .then(async (visit) => {
        if (!visit) return application(withPeerAddress(request), response);
        send(response, (await serveVisit(visit)).answer);
      })
      .catch((error) => fail(response, error));
  };
}
