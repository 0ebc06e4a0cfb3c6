import { Agent, request } from "node:http";
import { BROWSER_USER_AGENT } from "./wrk";

/**
 * Exactly `total` GET visits over `connections` keep-alive connections, every answer read: the
 * count wrk cannot give (it stops mid-flight), for checking scans recorded == redirects answered.
 */
export async function exactVisits(baseUrl: string, host: string, path: string, total: number, connections: number): Promise<{ redirects: number; other: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  let started = 0;
  let redirects = 0;
  let other = 0;
  const visitOnce = () =>
    new Promise<void>((resolve, reject) => {
      const outgoing = request(`${baseUrl}${path}`, { agent, headers: { host, "user-agent": BROWSER_USER_AGENT, accept: "text/html" } }, (response) => {
        if (response.statusCode !== undefined && response.statusCode >= 300 && response.statusCode < 400) redirects++;
        else other++;
        response.resume();
        response.on("end", resolve);
      });
      outgoing.on("error", reject);
      outgoing.end();
    });
  const loop = async () => {
    while (started < total) {
      started++;
      await visitOnce();
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, loop));
  } finally {
    agent.destroy();
  }
  return { redirects, other };
}
