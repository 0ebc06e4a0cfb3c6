import { log } from "@/lib/log";
import type { IncomingMessage, ServerResponse } from "node:http";
import { formRefusedAnswer } from "./answer";
import {
  applicationRefusal,
  applicationRefusalNow,
  CUSTOM_DOMAIN,
  MAX_FORM_BYTES,
  serveFromMemory,
  serveVisit,
  visitFor,
  visitNow,
  withFormPassword,
  type DoorRequest,
} from "./door";
import type { Answer } from "./types";
import { sendAnswer } from "./write-answer";

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A class, not an object literal with a closure: the method is made once, not once a request. */
class NodeDoorRequest implements DoorRequest {
  readonly method: string;
  readonly hostHeader: string | null;
  readonly pathname: string;
  readonly search: string;
  readonly peerAddress: string | null;

  constructor(private readonly request: IncomingMessage) {
    const url = request.url ?? "/";
    const queryStart = url.indexOf("?");
    this.method = request.method ?? "GET";
    this.hostHeader = request.headers.host ?? null;
    this.pathname = queryStart === -1 ? url : url.slice(0, queryStart);
    this.search = queryStart === -1 ? "" : url.slice(queryStart);
    this.peerAddress = request.socket.remoteAddress ?? null;
  }

  header(name: string): string | null {
    const value = this.request.headers[name];
    return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
  }
}

/** Appends the socket's peer to X-Forwarded-For, as a proxy does, so the app can trust the right end. */
function withPeerAddress(request: IncomingMessage): IncomingMessage {
  const peer = request.socket.remoteAddress;
  if (!peer) return request;
  const forwarded = request.headers["x-forwarded-for"];
  request.headers["x-forwarded-for"] = forwarded ? `${forwarded}, ${peer}` : peer;
  return request;
}

function fail(response: ServerResponse, error: unknown): void {
  log().error({ err: error }, "short-link request failed");
  if (!response.headersSent) response.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
  response.end("Something went wrong on our side.");
}

/**
 * The self-hosted front: answers short-link visits straight from node:http with the shared
 * resolution core, and hands every other request to the application (Next's handler), unless its
 * host serves short links only. A warm visit on the short host is answered synchronously from
 * memory; the rest take the async path.
 */
export function createFrontDoor(application: Handler): Handler {
  const toApplication = (incoming: NodeDoorRequest, request: IncomingMessage, response: ServerResponse) => {
    const refusal = applicationRefusalNow(incoming);
    if (refusal === null) return application(withPeerAddress(request), response);
    if (refusal !== CUSTOM_DOMAIN) return refuse(request, response, refusal);
    applicationRefusal(incoming)
      .then((refused) => (refused ? refuse(request, response, refused) : application(withPeerAddress(request), response)))
      .catch((error) => fail(response, error));
  };
  return (request, response) => {
    const incoming = new NodeDoorRequest(request);
    let served;
    try {
      const visit = visitNow(incoming);
      if (visit === null) return toApplication(incoming, request, response);
      served = visit === CUSTOM_DOMAIN ? undefined : serveFromMemory(visit);
    } catch (error) {
      return fail(response, error);
    }
    if (served) return sendAnswer(response, served.answer);
    visitFor(incoming)
      .then(async (visit) => {
        if (!visit) return toApplication(incoming, request, response);
        if (visit.method !== "POST") return sendAnswer(response, (await serveVisit(visit)).answer);
        const body = await readForm(request);
        if (body === null) return refuse(request, response, formRefusedAnswer());
        sendAnswer(response, (await serveVisit(withFormPassword(visit, body))).answer);
      })
      .catch((error) => fail(response, error));
  };
}

/** The body, if any, is drained rather than read: the connection stays usable for the next request. */
function refuse(request: IncomingMessage, response: ServerResponse, answer: Answer): void {
  sendAnswer(response, answer);
  request.resume();
}

/** A form that has not arrived whole by then is refused: a password is a few bytes. */
const FORM_DEADLINE_MS = 10_000;

/** The password form's body, or null when it is longer than a form's bound or slower than its deadline. */
function readForm(request: IncomingMessage): Promise<string | null> {
  const declared = Number(request.headers["content-length"] ?? 0);
  if (declared > MAX_FORM_BYTES) return Promise.resolve(null);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const finish = (body: string | null) => {
      clearTimeout(timer);
      request.off("data", onData).off("end", onEnd).off("error", onError);
      resolve(body);
    };
    const onData = (chunk: Buffer) => {
      length += chunk.length;
      if (length > MAX_FORM_BYTES) finish(null);
      else chunks.push(chunk);
    };
    const onEnd = () => finish(Buffer.concat(chunks).toString("utf8"));
    const onError = () => finish(null);
    const timer = setTimeout(() => finish(null), FORM_DEADLINE_MS);
    request.on("data", onData).on("end", onEnd).on("error", onError);
  });
}
