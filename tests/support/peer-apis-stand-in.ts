import http from "node:http";

/**
 * A local HTTP server speaking the list endpoints of Dub, Rebrandly and Short.io as each documents
 * them, for an import by API token (lib/imports/peers.ts); the real services are not reachable from
 * tests. Each peer lives under its own prefix (DUB_API_BASE = `${url}/dub`, and so on) and checks
 * its own credential header, answering as the peer does when it is missing or wrong:
 *
 * - Dub: `GET /links?page=N&pageSize=M` (pageSize at most 100, page from 1), `Authorization: Bearer <key>`;
 *   an array of links; 401 `{error: {code: "unauthorized", …}}`.
 * - Rebrandly: `GET /v1/links?limit=M&last=<id>` (limit at most 25), the `apikey` header, an optional
 *   `workspace` header; an array, the links after the one whose id is `last`; 401/403 `{code, message}`.
 * - Short.io: `GET /api/domains` and `GET /api/links?domain_id=<id>&limit=M&pageToken=<t>` (limit at most
 *   150), `authorization: <key>`; `{count, links, nextPageToken}`, nextPageToken null on the last page.
 *
 * `failNext` makes the next answers of one peer a given status (a 429 with Retry-After, a 503) so the
 * job's waiting and retrying can be watched; `requests` is every request as it arrived.
 */
export type Links = Record<string, unknown>[];
export type PeerData = {
  keys: { dub: string; rebrandly: string; shortio: string };
  dub: Links;
  rebrandly: { workspace: string; links: Links };
  shortio: { domains: { id: number; hostname: string }[]; links: Record<number, Links> };
};
type PeerName = "dub" | "rebrandly" | "shortio";
export type PeerRequest = { peer: PeerName; path: string; query: URLSearchParams; headers: http.IncomingHttpHeaders; at: number };
type Fault = { status: number; headers?: Record<string, string>; times: number };

export type PeerApis = {
  url: string;
  requests: PeerRequest[];
  failNext(peer: PeerName, fault: Fault): void;
  /** Fail every request of a peer whose query has `match` (page=2) with `status`, until cleared. */
  failWhere(peer: PeerName, match: (query: URLSearchParams) => boolean, status: number): () => void;
  close(): Promise<void>;
};

export async function startPeerApis(data: PeerData): Promise<PeerApis> {
  const requests: PeerRequest[] = [];
  const faults: Record<PeerName, Fault[]> = { dub: [], rebrandly: [], shortio: [] };
  const conditions: { peer: PeerName; match: (query: URLSearchParams) => boolean; status: number }[] = [];
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://stand-in");
    const [, peer, ...rest] = url.pathname.split("/");
    const path = `/${rest.join("/")}`;
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { "content-type": "application/json", ...headers });
      response.end(JSON.stringify(body));
    };
    if (peer !== "dub" && peer !== "rebrandly" && peer !== "shortio") return send(404, { message: "Not found" });
    requests.push({ peer, path, query: url.searchParams, headers: request.headers, at: Date.now() });
    const fault = faults[peer][0];
    if (fault) {
      if (--fault.times === 0) faults[peer].shift();
      return send(fault.status, { message: "stand-in fault" }, fault.headers);
    }
    const condition = conditions.find((each) => each.peer === peer && each.match(url.searchParams));
    if (condition) return send(condition.status, { message: "stand-in fault" });
    if (request.method !== "GET") return send(405, { message: "Method not allowed" });
    if (peer === "dub") return dub(data, request, path, url.searchParams, send);
    if (peer === "rebrandly") return rebrandly(data, request, path, url.searchParams, send);
    return shortio(data, request, path, url.searchParams, send);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext: (peer, fault) => faults[peer].push({ ...fault }),
    failWhere: (peer, match, status) => {
      const condition = { peer, match, status };
      conditions.push(condition);
      return () => conditions.splice(conditions.indexOf(condition), 1);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Send = (status: number, body: unknown, headers?: Record<string, string>) => void;

function bounded(value: string | null, fallback: number, max: number): number | null {
  if (value === null) return fallback;
  const number = Number(value);
  return Number.isInteger(number) && number >= 1 && number <= max ? number : null;
}

function dub(data: PeerData, request: http.IncomingMessage, path: string, query: URLSearchParams, send: Send) {
  if (request.headers.authorization !== `Bearer ${data.keys.dub}`)
    return send(401, {
      error: {
        code: "unauthorized",
        message: "Unauthorized: Invalid API key.",
        doc_url: "https://dub.co/docs/api-reference/errors",
      },
    });
  if (path !== "/links") return send(404, { error: { code: "not_found", message: "Not found" } });
  const page = bounded(query.get("page"), 1, 1_000_000);
  const pageSize = bounded(query.get("pageSize"), 100, 100);
  if (page === null || pageSize === null)
    return send(422, {
      error: { code: "unprocessable_entity", message: "page and pageSize must be positive, pageSize at most 100" },
    });
  send(200, data.dub.slice((page - 1) * pageSize, page * pageSize));
}

function rebrandly(data: PeerData, request: http.IncomingMessage, path: string, query: URLSearchParams, send: Send) {
  if (request.headers.apikey !== data.keys.rebrandly) return send(401, { code: "Unauthorized", message: "Unauthorized" });
  const workspace = request.headers.workspace;
  if (workspace !== undefined && workspace !== data.rebrandly.workspace)
    return send(403, { code: "Forbidden", message: "Workspace not accessible" });
  if (path !== "/v1/links") return send(404, { code: "NotFound", message: "Not found" });
  const limit = bounded(query.get("limit"), 25, 25);
  if (limit === null) return send(400, { code: "InvalidFormat", message: "limit must be between 1 and 25" });
  const last = query.get("last");
  const from = last === null ? 0 : data.rebrandly.links.findIndex((link) => link.id === last) + 1;
  if (last !== null && from === 0) return send(404, { code: "NotFound", message: "last: link not found" });
  send(200, data.rebrandly.links.slice(from, from + limit));
}

function shortio(data: PeerData, request: http.IncomingMessage, path: string, query: URLSearchParams, send: Send) {
  if (request.headers.authorization !== data.keys.shortio)
    return send(401, { error: "Unauthorized", message: "Invalid API key" });
  if (path === "/api/domains")
    return send(
      200,
      data.shortio.domains.map((domain) => ({ ...domain, linkType: "increment", state: "configured", caseSensitive: true })),
    );
  if (path !== "/api/links") return send(404, { error: "Not Found" });
  const domainId = Number(query.get("domain_id"));
  const links = data.shortio.links[domainId];
  if (!links) return send(403, { error: "Forbidden", message: "Domain not found or not accessible" });
  const limit = bounded(query.get("limit"), 150, 150);
  if (limit === null) return send(400, { error: "Bad Request", message: "limit must be at most 150" });
  const token = query.get("pageToken");
  const from =
    token === null
      ? 0
      : Number(
          Buffer.from(token, "base64url")
            .toString("utf8")
            .replace(/^after:/, ""),
        );
  if (!Number.isInteger(from)) return send(400, { error: "Bad Request", message: "Invalid pageToken" });
  const page = links.slice(from, from + limit);
  const next = from + limit < links.length ? Buffer.from(`after:${from + limit}`).toString("base64url") : null;
  send(200, { count: page.length, links: page, nextPageToken: next });
}
