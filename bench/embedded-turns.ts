import { createConnection, createServer, type Server, type Socket } from "node:net";

/**
 * The embedded database (PGlite behind @prisma/dev's server) runs every connection's messages on
 * one session as they arrive, so two connections' exchanges interleave (one's Parse between the
 * other's Parse and Bind: "bind message supplies 1 parameters, but prepared statement "" requires
 * 0"). The bench needs two clients at once, its own queries (seeding, counting scans) and the app
 * it measures, so it puts this in front of the database: each client keeps its own connection, but
 * only one client's exchange runs at a time, from its first message until the database is ready for
 * the next query outside a transaction (ReadyForQuery, status idle). Nothing else of the protocol is read.
 */
export type EmbeddedTurns = { url: string; close(): Promise<void> };

type Client = { socket: Socket; backend: Socket; pending: Buffer[]; inBackend: Buffer; answered: boolean };

export async function startEmbeddedTurns(databaseUrl: string): Promise<EmbeddedTurns> {
  const target = new URL(databaseUrl);
  const waiting: Client[] = [];
  let holder: Client | null = null;
  const sockets = new Set<Socket>();

  const grant = () => {
    while (holder === null && waiting.length > 0) {
      const next = waiting.shift()!;
      if (next.socket.destroyed) continue;
      holder = next;
      for (const chunk of next.pending.splice(0)) next.backend.write(chunk);
    }
  };
  const release = (client: Client) => {
    if (holder !== client) return;
    holder = null;
    if (client.pending.length > 0) waiting.push(client);
    grant();
  };

  const server: Server = createServer((socket) => {
    const backend = createConnection({ host: target.hostname, port: Number(target.port) });
    const client: Client = { socket, backend, pending: [], inBackend: Buffer.alloc(0), answered: false };
    for (const each of [socket, backend]) {
      sockets.add(each);
      each.on("error", () => undefined);
    }
    const end = () => {
      socket.destroy();
      backend.destroy();
      const index = waiting.indexOf(client);
      if (index >= 0) waiting.splice(index, 1);
      release(client);
    };
    socket.on("close", end);
    backend.on("close", end);
    socket.on("data", (chunk: Buffer) => {
      if (holder === client) return void backend.write(chunk);
      client.pending.push(chunk);
      if (!waiting.includes(client)) waiting.push(client);
      grant();
    });
    backend.on("data", (chunk: Buffer) => {
      socket.write(chunk);
      // The one-byte answer to an SSLRequest ("N": no TLS) comes before any message.
      const first = !client.answered;
      client.answered = true;
      if (first && chunk.length === 1 && chunk[0] === 0x4e) return;
      // Every backend message is a type byte and a length that counts itself: find the ReadyForQuery ones.
      let buffer = Buffer.concat([client.inBackend, chunk]);
      let idle = false;
      while (buffer.length >= 5) {
        const length = buffer.readInt32BE(1);
        if (buffer.length < length + 1) break;
        if (buffer[0] === 0x5a) idle = buffer[5] === 0x49; // 'Z', status 'I'
        buffer = buffer.subarray(length + 1);
      }
      client.inBackend = Buffer.from(buffer);
      if (idle && client.pending.length === 0) release(client);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const url = new URL(databaseUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return {
    url: url.toString(),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
