import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { applicationServer, INVALIDATIONS_SENT_HEADER, InvalidationsHeard, proxyToApplication } from "./application-proxy";

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((closed) => server.close(closed));
  }
});

async function listening(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  return (server.address() as AddressInfo).port;
}

/**
 * An application that closes each kept-alive socket as its second request arrives: what the front
 * meets when the application's idle timeout closes a socket the instant the front reuses it.
 */
async function applicationClosingReusedSockets(): Promise<{ port: number; answered: string[] }> {
  const answered: string[] = [];
  const requestsOnSocket = new WeakMap<object, number>();
  const application = createServer((request, response) => {
    const count = (requestsOnSocket.get(request.socket) ?? 0) + 1;
    requestsOnSocket.set(request.socket, count);
    if (count > 1) return void request.socket.destroy();
    request.resume();
    request.on("end", () => {
      answered.push(`${request.method} ${request.url}`);
      response.end("answered");
    });
  });
  return { port: await listening(application), answered };
}

async function frontFor(applicationPort: number): Promise<string> {
  const front = createServer(proxyToApplication(applicationPort, new InvalidationsHeard()));
  return `http://127.0.0.1:${await listening(front)}`;
}

/**
 * An application whose second request on a kept-alive socket is answered in part, then the socket
 * is reset (the application process dying mid-answer): the request did reach it.
 */
async function applicationResettingMidAnswer(): Promise<{ port: number; received: string[] }> {
  const received: string[] = [];
  const requestsOnSocket = new WeakMap<object, number>();
  const application = createServer((request, response) => {
    const count = (requestsOnSocket.get(request.socket) ?? 0) + 1;
    requestsOnSocket.set(request.socket, count);
    received.push(`${request.method} ${request.url}`);
    if (count === 1) return void response.end("answered");
    response.writeHead(200, { "Content-Type": "text/plain" });
    response.write("part of the answer", () => setTimeout(() => request.socket.resetAndDestroy(), 50));
  });
  return { port: await listening(application), received };
}

describe("the front door's proxy to the application", () => {
  it("sends a GET again on a new socket when the kept-alive one it reused was closed under it", async () => {
    const application = await applicationClosingReusedSockets();
    const front = await frontFor(application.port);

    const first = await fetch(`${front}/dashboard`);
    const second = await fetch(`${front}/dashboard/links`);
    const third = await fetch(`${front}/api/health`, { method: "HEAD" });

    expect([first.status, second.status, third.status]).toEqual([200, 200, 200]);
    expect(await second.text()).toBe("answered");
    expect(application.answered).toEqual(["GET /dashboard", "GET /dashboard/links", "HEAD /api/health"]);
  });

  it("does not repeat a request with a body, which may have reached the application: it answers 502", async () => {
    const application = await applicationClosingReusedSockets();
    const front = await frontFor(application.port);

    expect((await fetch(`${front}/dashboard`)).status).toBe(200);
    const post = await fetch(`${front}/api/links`, { method: "POST", body: '{"destination":"https://example.com"}' });

    expect(post.status).toBe(502);
    expect(await post.text()).toBe("The application did not answer.");
    expect(application.answered).toEqual(["GET /dashboard"]);
  });

  it("does not send the GET again once the application began answering it", async () => {
    const application = await applicationResettingMidAnswer();
    const front = await frontFor(application.port);

    expect((await fetch(`${front}/dashboard`)).status).toBe(200);
    const second = await fetch(`${front}/dashboard/links`);
    expect(second.status).toBe(200);
    await expect(second.text()).rejects.toThrow();

    await new Promise((settled) => setTimeout(settled, 200));
    expect(application.received).toEqual(["GET /dashboard", "GET /dashboard/links"]);
  });

  it("answers 502 once, and nothing more, when the socket fails while an answer waits for its invalidation", async () => {
    const application = createServer((request, response) => {
      response.writeHead(200, { [INVALIDATIONS_SENT_HEADER]: "1" });
      response.write("part of the answer", () => setTimeout(() => request.socket.resetAndDestroy(), 50));
    });
    const heard = new InvalidationsHeard();
    const front = createServer(proxyToApplication(await listening(application), heard));
    const answer = await fetch(`http://127.0.0.1:${await listening(front)}/api/links`);
    expect(answer.status).toBe(502);

    // The invalidation the answer waited for arrives after the 502: the answer must not be forwarded now.
    heard.deliver({ kind: "everything" });
    await new Promise((settled) => setTimeout(settled, 100));
    expect(await answer.text()).toBe("The application did not answer.");
  });

  it("keeps the front's idle socket open past Node's keep-alive timeout (5 s, closed at 6): only the front closes one", async () => {
    const sockets = new Set<object>();
    const application = applicationServer();
    application.on("request", (request: IncomingMessage, response: ServerResponse) => {
      sockets.add(request.socket);
      request.resume();
      request.on("end", () => response.end("answered"));
    });
    const front = await frontFor(await listening(application));

    expect((await fetch(`${front}/api/workspaces/logo`, { method: "PUT", body: "first" })).status).toBe(200);
    await new Promise((settled) => setTimeout(settled, 7_000));
    const open = await new Promise<number>((counted) => application.getConnections((_, count) => counted(count)));
    const second = await fetch(`${front}/api/workspaces/logo`, { method: "PUT", body: "second" });

    expect(open).toBe(1);
    expect(second.status).toBe(200);
    expect(sockets.size).toBe(1);
  }, 15_000);
});
