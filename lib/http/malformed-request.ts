import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * The methods Next's request handling takes. Node's parser lets others through (TRACE, PROPFIND,
 * …), and Next then fails on them with a 500, or with a 400 that has no body.
 */
const METHODS_WE_SERVE = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export type Refusal = { status: 400 | 403; headers: Record<string, string>; body: string };

/**
 * A 400 `{ error }` for a request no route could take: a method we do not serve, or a path whose
 * percent-escapes do not decode (`/api/links/%`, `%FF`), which Next cannot match to a route and
 * answers with a bare 500. Null for everything else. Both doors call it first (the front door in
 * `npm start`, proxy.ts under Next), so it stays cheap: the path is decoded only when it has a `%`.
 */
export function malformedRequest(method: string, pathname: string): Refusal | null {
  if (!METHODS_WE_SERVE.has(method)) {
    return refusal(`This service does not take ${method} requests; it takes ${[...METHODS_WE_SERVE].join(", ")}.`);
  }
  if (pathname.includes("%") && !decodes(pathname)) {
    return refusal("The request's path has a malformed percent-escape: each % must start an escape of UTF-8 such as %20.");
  }
  return null;
}

/**
 * A 403 `{ error }` for a server action sent from a page of another origin, which Next refuses by
 * throwing, a bare 500. What Next takes for one: a `Next-Action` header, or any multipart POST to a
 * page (a form's action sent without JavaScript), whatever its fields. The same comparison as
 * Next's: the Origin's host against the forwarded host or the Host. Null for everything else.
 */
export function foreignServerAction(method: string, header: (name: string) => string | null): Refusal | null {
  if (header("next-action") === null && !(method === "POST" && isMultipart(header))) return null;
  const origin = header("origin");
  if (origin === null) return null;
  const host = header("x-forwarded-host")?.split(",")[0]!.trim() ?? header("host");
  if (URL.parse(origin)?.host === host) return null;
  return refusal("This form was sent from a page of another site; open the page on this site and send it again.", 403);
}

/**
 * A 400 `{ error }` for a server action whose body Next cannot decode, which it answers with a bare
 * 500. Next's own client sends either multipart form data, or, when the arguments are simple
 * enough, a JSON array as text; anything else did not come from one of our pages. Next also takes
 * any multipart POST to a page for a form's action (one sent without JavaScript) and parses it.
 * `body` reads a copy of the request's body; nothing else is read.
 */
export async function undecodableServerAction(
  method: string,
  header: (name: string) => string | null,
  body: () => Promise<ArrayBuffer>,
): Promise<Refusal | null> {
  if (method !== "POST") return null;
  const contentType = header("content-type") ?? "";
  const multipart = isMultipart(header);
  if (!multipart && header("next-action") === null) return null;
  const readable = multipart
    ? await parsesAsForm(contentType, await body())
    : isJsonArray(Buffer.from(await body()).toString("utf8"));
  if (readable) return null;
  return refusal("This form's data arrived damaged; reload the page and send it again.");
}

function isMultipart(header: (name: string) => string | null): boolean {
  return (header("content-type") ?? "").toLowerCase().startsWith("multipart/form-data");
}

async function parsesAsForm(contentType: string, body: ArrayBuffer): Promise<boolean> {
  try {
    await new Request("http://form.invalid/", { method: "POST", headers: { "content-type": contentType }, body }).formData();
    return true;
  } catch {
    return false;
  }
}

function isJsonArray(text: string): boolean {
  try {
    return Array.isArray(JSON.parse(text));
  } catch {
    return false;
  }
}

function decodes(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

function refusal(error: string, status: Refusal["status"] = 400): Refusal {
  return {
    status,
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
    body: JSON.stringify({ error }),
  };
}

type NodeHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** For a node:http server: answers a malformed request with its 400 and hands the rest to `next`. */
export function refusingMalformedRequests(next: NodeHandler): NodeHandler {
  return (request, response) => {
    const url = request.url ?? "/";
    const queryStart = url.indexOf("?");
    const refused = malformedRequest(request.method ?? "GET", queryStart === -1 ? url : url.slice(0, queryStart));
    if (!refused) return next(request, response);
    response.writeHead(refused.status, refused.headers);
    response.end(refused.body);
  };
}
