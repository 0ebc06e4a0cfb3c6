import { serveVisit, visitFor } from "@/lib/resolution/door";
import type { Answer } from "@/lib/resolution/types";

/** A short-link visit through the shared door logic, as a browser on the short host would make it. */
export async function visit(
  path: string,
  options: { host?: string; method?: "GET" | "HEAD"; headers?: Record<string, string>; peer?: string } = {},
): Promise<Answer> {
  const url = new URL(path, "http://placeholder");
  const headers = Object.fromEntries(Object.entries(options.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  const request = {
    method: options.method ?? "GET",
    hostHeader: options.host ?? "s.test.example",
    pathname: url.pathname,
    search: url.search,
    header: (name: string) => headers[name] ?? null,
    peerAddress: options.peer ?? null,
  };
  const resolved = await visitFor(request);
  if (!resolved) throw new Error(`${path} on ${request.hostHeader} is not a short-link visit`);
  return (await serveVisit(resolved)).answer;
}
