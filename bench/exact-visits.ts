import { Agent, request } from "node:http";
import { BROWSER_USER_AGENT } from "./wrk";

/** One GET with the bench's browser headers, its answer read to the end: the status and how long it took. */
function visitOnce(agent: Agent, url: string, host: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { agent, headers: { host, "user-agent": BROWSER_USER_AGENT, accept: "text/html" } },
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
 */
export async function exactVisits(
  baseUrl: string,
  host: string,
  path: string,
  total: number,
  connections: number,
): Promise<{ redirects: number; other: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  let started = 0;
  let redirects = 0;
  let other = 0;
  const loop = async () => {
    while (started < total) {
      started++;
      const { status } = await visitOnce(agent, `${baseUrl}${path}`, host);
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
