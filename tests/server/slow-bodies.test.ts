import { startApp, type RunningApp } from "@/server/app-process";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { frontAppEnv } from "../support/faults";

/**
 * Request bodies trickled a byte at a time, each holding one of the front's 256 sockets to the
 * application process: readiness must not wait behind them, and none may hold its socket for long.
 * The suite plays the one proxy in front (TRUSTED_PROXY_HOPS=1), so X-Forwarded-For names the client.
 */
let app: RunningApp;

beforeAll(async () => {
  app = await startApp("front", frontAppEnv(process.env.DATABASE_URL!, process.env.DNS_RESOLVER, { TRUSTED_PROXY_HOPS: "1" }));
});

afterAll(async () => {
  await app?.stop();
});

type Trickle = { socket: Socket; answer: Promise<string>; stop(): void };

/** A `POST /api/links` from `client` that sends its headers, then one byte of its body every 2 s. */
function trickle(client: string): Trickle {
  const socket = connect(app.port, "127.0.0.1");
  socket.on("error", () => undefined);
  socket.write(
    "POST /api/links HTTP/1.1\r\nHost: app.test.example\r\nContent-Type: application/json\r\n" +
      `X-Forwarded-For: ${client}\r\nContent-Length: 1000\r\n\r\n{`,
  );
  const timer = setInterval(() => socket.write(" "), 2000);
  let received = "";
  const answer = new Promise<string>((resolve) => {
    socket.on("data", (chunk) => (received += chunk));
    socket.on("close", () => resolve(received));
  });
  return { socket, answer, stop: () => (clearInterval(timer), socket.destroy()) };
}

const statusLine = (answer: string) => answer.split("\r\n", 1)[0];

describe("slow request bodies", () => {
  it("leave readiness answering, and are each refused with 408 within seconds instead of holding a socket", async () => {
    // Enough networks to take all 256 sockets.
    const trickles = Array.from({ length: 300 }, (_, index) => trickle(`198.51.${index}.7`));
    try {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const health = await fetch(`${app.url}/api/health`, { signal: AbortSignal.timeout(3000) });
      expect(health.status).toBe(200);

      const answers = await Promise.race([
        Promise.all(trickles.map((each) => each.answer)),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 30_000)),
      ]);
      expect(answers, "every slow body is answered and its connection closed within 30 s").not.toBeNull();
      for (const answer of answers!) expect(statusLine(answer)).toBe("HTTP/1.1 408 Request Timeout");
      expect(answers![0]).toContain("arrived too slowly");

      const api = await fetch(`${app.url}/api/openapi.json`, { signal: AbortSignal.timeout(10_000) });
      expect(api.status).toBe(200);
    } finally {
      for (const each of trickles) each.stop();
    }
  }, 90_000);

  it("lets one network hold an eighth of the application's sockets; its next requests get 429, others go on", async () => {
    const trickles = Array.from({ length: 40 }, (_, index) => trickle(`203.0.113.${index + 1}`));
    try {
      // Past the share, the network's requests are answered at once; which ones depends on arrival order.
      const within5s = await Promise.all(
        trickles.map((each) =>
          Promise.race([each.answer, new Promise<null>((resolve) => setTimeout(() => resolve(null), 5000))]),
        ),
      );
      const refused = within5s.filter((answer) => answer !== null);
      expect(refused).toHaveLength(8);
      for (const answer of refused) expect(statusLine(answer!)).toBe("HTTP/1.1 429 Too Many Requests");

      const other = await fetch(`${app.url}/api/openapi.json`, {
        headers: { "x-forwarded-for": "192.0.2.44" },
        signal: AbortSignal.timeout(10_000),
      });
      expect(other.status).toBe(200);
    } finally {
      for (const each of trickles) each.stop();
    }
  }, 60_000);
});
