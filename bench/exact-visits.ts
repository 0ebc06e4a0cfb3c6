import { Agent, request } from "node:http";
import { BROWSER_USER_AGENT } from "./wrk";

/** Who a visit comes from: a browser, and the address a proxy in front of the server saw (X-Forwarded-For). */
export type Visitor = { userAgent: string; forwardedFor?: string };

const BENCH_BROWSER: Visitor = { userAgent: BROWSER_USER_AGENT };

/** One GET with the visitor's headers, its answer read to the end: the status and how long it took. */
export function visitOnce(
  agent: Agent,
  url: string,
  host: string,
  visitor = BENCH_BROWSER,
): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const forwarded = visitor.forwardedFor ? { "x-forwarded-for": visitor.forwardedFor } : {};
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { agent, headers: { host, "user-agent": visitor.userAgent, accept: "text/html", ...forwarded } },
      (response) => {
        response.resume();
        response.on("end", () => resolve({ status: response.statusCode ?? 0, ms: performance.now() - started }));
      },
    );
    outgoing.on("error", reject);
    outgoing.end();
  });
}

/**
 * Exactly `total` GET visits over `connections` keep-alive connections, every answer read: the
 * count wrk cannot give (it stops mid-flight), for checking scans recorded == redirects answered.
 * `path` and `visitor` may choose anew for each visit.
 */
export async function exactVisits(
  baseUrl: string,
  host: string,
  path: string | (() => string),
  total: number,
  connections: number,
  visitor: () => Visitor = () => BENCH_BROWSER,
): Promise<{ redirects: number; other: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  let started = 0;
  let redirects = 0;
  let other = 0;
  const loop = async () => {
    while (started < total) {
      started++;
      const { status } = await visitOnce(agent, `${baseUrl}${typeof path === "string" ? path : path()}`, host, visitor());
      if (status >= 300 && status < 400) redirects++;
      else other++;
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, loop));
  } finally {
    agent.destroy();
  }
  return { redirects, other };
}

/** `connections` visits sent at once, as the first visitors of a link arrive: each one's time in ms, fastest first. */
export async function concurrentVisits(baseUrl: string, host: string, path: string, connections: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  try {
    const visits = await Promise.all(Array.from({ length: connections }, () => visitOnce(agent, `${baseUrl}${path}`, host)));
    return visits.map((visit) => visit.ms).sort((a, b) => a - b);
  } finally {
    agent.destroy();
  }
}
