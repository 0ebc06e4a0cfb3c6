import { request } from "node:http";

export type RawResponse = { status: number; headers: Record<string, string>; body: string };

/** A plain HTTP request with a chosen Host header and no redirect following (fetch cannot set Host). */
export function rawRequest(
  baseUrl: string,
  path: string,
  options: { method?: string; host: string; headers?: Record<string, string>; body?: string },
): Promise<RawResponse> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: options.method ?? "GET",
        headers: { ...options.headers, host: options.host },
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => (body += chunk));
        response.on("end", () => {
          const headers = Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [name, String(value)]));
          resolve({ status: response.statusCode ?? 0, headers, body });
        });
      },
    );
    outgoing.on("error", reject);
    outgoing.end(options.body);
  });
}

/** The status a server answers on `address` at `port` (its OpenAPI document), or the code its connection failed with (ECONNREFUSED). */
export async function answerOn(address: string, port: number): Promise<number | string> {
  const host = address.includes(":") ? `[${address}]` : address;
  return fetch(`http://${host}:${port}/api/openapi.json`).then(
    async (response) => {
      await response.arrayBuffer();
      return response.status;
    },
    (error: TypeError & { cause?: { code?: string } }) => error.cause?.code ?? String(error),
  );
}
