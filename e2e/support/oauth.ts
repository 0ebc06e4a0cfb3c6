import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** The app's side of the redirect: a loopback server that keeps the code it is sent. */
export class Callback {
  private server: Server | undefined;
  private waiting: ((query: URLSearchParams) => void) | undefined;
  url = "";

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const query = new URL(request.url ?? "/", "http://127.0.0.1").searchParams;
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end("<!doctype html><title>Connected</title><p>You can close this window.</p>");
      this.waiting?.(query);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/callback`;
  }

  next(): Promise<URLSearchParams> {
    return new Promise((resolve) => (this.waiting = resolve));
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
