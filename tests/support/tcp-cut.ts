import { createServer, connect, type Server, type Socket } from "node:net";

export type TcpCut = {
  /** 127.0.0.1's port that forwards to the target while open. */
  port: number;
  /** Cuts every open connection and refuses new ones, as a database host that dropped off the network. */
  cut(): Promise<void>;
  /** Accepts and forwards again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
};

/** A TCP forwarder in front of `targetPort` that a test can cut and restore: the real server, an outage between. */
export async function startTcpCut(targetPort: number): Promise<TcpCut> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;

  function listen(): Promise<void> {
    server = createServer((client) => {
      const upstream = connect(targetPort, "127.0.0.1");
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
        socket.on("error", () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    return new Promise<void>((resolve) => server!.listen(port, "127.0.0.1", () => resolve())).then(() => {
      port = (server!.address() as { port: number }).port;
    });
  }

  async function stop(): Promise<void> {
    const closing = server ? new Promise<void>((resolve) => server!.close(() => resolve())) : Promise.resolve();
    for (const socket of sockets) socket.destroy();
    server = null;
    await closing;
  }

  await listen();
  return { port, cut: stop, restore: listen, close: stop };
}
