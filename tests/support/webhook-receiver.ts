import { clock } from "@/lib/clock";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { vi } from "vitest";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the payload as JSON, read by each test
export type ReceivedMessage = { id: string; type: string; data: any; body: string; headers: IncomingHttpHeaders };

export type WebhookReceiver = {
  /** http://127.0.0.1:<port>/hooks */
  url: string;
  port: number;
  /** Every request that arrived, verified or not, in order. */
  received: ReceivedMessage[];
  /** Requests whose signature the Standard Webhooks library refused. */
  unverified: number;
  /** Requests being answered now (held by `delayMs`). */
  inFlight: number;
  /** The secret to verify with (whsec_…); set it once the webhook is created. */
  secret: string;
  /** The status answered; 204 unless a test changes it. */
  status: number;
  /** How long the answer is held. */
  delayMs: number;
  close(): Promise<void>;
};

/**
 * A real HTTP receiver on 127.0.0.1 that verifies every request with the Standard Webhooks
 * library (standardwebhooks), counts what arrives, and answers `status` after `delayMs`. The
 * library checks the timestamp against its clock: it is read from the suite's clock, which the
 * tests move, as a receiver's and the sender's clocks agree in real life.
 */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const receiver: WebhookReceiver = {
    url: "",
    port: 0,
    received: [],
    unverified: 0,
    inFlight: 0,
    secret: "",
    status: 204,
    delayMs: 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const payload = verified(receiver.secret, body, request.headers);
      if (payload === null) receiver.unverified += 1;
      const parsed = JSON.parse(body);
      receiver.received.push({
        id: String(request.headers["webhook-id"]),
        type: parsed.type,
        data: parsed.data,
        body,
        headers: request.headers,
      });
      receiver.inFlight += 1;
      setTimeout(() => {
        receiver.inFlight -= 1;
        response.writeHead(receiver.status).end();
      }, receiver.delayMs);
    });
  });
  server.closeIdleConnections();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hooks`;
  const close = receiver.close;
  receiver.close = () => {
    server.closeAllConnections();
    return close();
  };
  return receiver;
}

function verified(secret: string, body: string, headers: IncomingHttpHeaders): unknown {
  if (!secret) return null;
  const suiteNow = clock().now();
  const now = vi.spyOn(Date, "now").mockReturnValue(suiteNow);
  try {
    return new Webhook(secret).verify(body, headers as Record<string, string>);
  } catch {
    return null;
  } finally {
    now.mockRestore();
  }
}
