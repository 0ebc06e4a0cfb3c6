/**
 * Permalink's typed API client: openapi-fetch over the types openapi-typescript generates from the
 * OpenAPI document (schema.ts, `npm run client:generate`). Every path, parameter, body and answer is
 * typed by the operation the service declares (docs/api.md#the-typed-client).
 */
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { paths } from "./schema";

export type { components, operations, paths } from "./schema";

export type PermalinkClient = Client<paths>;

export type PermalinkClientOptions = Omit<ClientOptions, "baseUrl" | "headers" | "bodySerializer"> & {
  /** The deployment's address, as its document's servers name it: https://links.example */
  baseUrl: string;
  /** A workspace API key or a session token, sent as `Authorization: Bearer`; none for the public operations. */
  token?: string;
  /** The workspace a session token acts on when it can reach several (`X-Workspace-Id`); an API key ignores it. */
  workspaceId?: string;
  /** Further headers for every request. */
  headers?: Record<string, string>;
};

export function createPermalinkClient({
  baseUrl,
  token,
  workspaceId,
  headers,
  ...options
}: PermalinkClientOptions): PermalinkClient {
  return createClient<paths>({
    ...options,
    baseUrl: baseUrl.replace(/\/+$/, ""),
    headers: {
      ...(token && { authorization: `Bearer ${token}` }),
      ...(workspaceId && { "x-workspace-id": workspaceId }),
      ...headers,
    },
    bodySerializer: serializeBody,
  });
}

/**
 * A body is sent as JSON, except a file: bytes (a logo) as they are, and a string sent with a Content-Type of
 * its own other than JSON, also as it is (a CSV file to import: `headers: { "content-type": "text/csv" }`).
 */
function serializeBody(body: unknown, headers?: Headers): BodyInit {
  if (body instanceof FormData || body instanceof Blob || body instanceof ArrayBuffer || ArrayBuffer.isView(body)) {
    return body as BodyInit;
  }
  const contentType = headers?.get("content-type");
  if (typeof body === "string" && contentType && !/^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType)) return body;
  return JSON.stringify(body);
}
