import { connect, createServer, type Server, type Socket } from "node:net";

export type TcpCut = {
  /** 127.0.0.1's port that forwards to the target while open. */
  port: number;
  /**
   * Cuts every open connection and refuses new ones, as a database host that dropped off the
   * network and said so (each end sees its connection close). `silent`: as a cut whose packets
   * vanish, or a firewall that dropped the connections' state: every connection open at the cut
   * stays open and never carries a byte again, either way, even after the restore; connections
   * opened during the cut wait in silence and go through at the restore (their handshake retransmitted).
   */
  cut(options?: { silent?: boolean }): Promise<void>;
  /** Holds every byte, both ways, on every connection, and new connections too, until the restore delivers them: a database that hangs. */
  hang(): void;
  /** Accepts and forwards again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
};

type Mode = "open" | "refusing" | "silent" | "hung";

/** One client's connection and its upstream: bytes held while the forwarder holds them, dropped once it is dead. */
type Pair = { client: Socket; upstream: Socket | null; dead: boolean; toUpstream: Buffer[]; toClient: Buffer[] };

/** A TCP forwarder in front of `targetPort` that a test can cut and restore: the real server, an outage between. */
export async function startTcpCut(targetPort: number): Promise<TcpCut> {
  const pairs = new Set<Pair>();
  /** Upstream connections whose client gave up on them during a silent cut: open until close(). */
  const unheard = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  let mode: Mode = "open";

  const holding = () => mode === "silent" || mode === "hung";

  function deliver(pair: Pair): void {
    if (pair.dead || holding() || !pair.upstream) return;
    for (const chunk of pair.toUpstream.splice(0)) pair.upstream.write(chunk);
    for (const chunk of pair.toClient.splice(0)) pair.client.write(chunk);
  }

  function connectUpstream(pair: Pair): void {
    const upstream = connect(targetPort, "127.0.0.1");
    pair.upstream = upstream;
    upstream.on("error", () => undefined);
    upstream.on("data", (chunk: Buffer) => {
      if (pair.dead) return;
      pair.toClient.push(chunk);
      deliver(pair);
    });
    upstream.on("close", () => {
      if (!pair.dead) pair.client.destroy();
    });
    deliver(pair);
  }

  function listen(): Promise<void> {
    server = createServer((client) => {
      const pair: Pair = { client, upstream: null, dead: false, toUpstream: [], toClient: [] };
      pairs.add(pair);
      client.on("error", () => undefined);
      client.on("data", (chunk: Buffer) => {
        if (pair.dead) return;
        pair.toUpstream.push(chunk);
        deliver(pair);
      });
      client.on("close", () => {
        pairs.delete(pair);
        // A connection cut in silence: the server never hears that the client gave it up.
        if (pair.dead && pair.upstream) unheard.add(pair.upstream);
        else pair.upstream?.destroy();
      });
      if (!holding()) connectUpstream(pair);
    });
    return new Promise<void>((resolve) => server!.listen(port, "127.0.0.1", () => resolve())).then(() => {
      port = (server!.address() as { port: number }).port;
    });
  }

  async function stop(): Promise<void> {
    const closing = server ? new Promise<void>((resolve) => server!.close(() => resolve())) : Promise.resolve();
    for (const pair of pairs) {
      pair.dead = true;
      pair.client.destroy();
      pair.upstream?.destroy();
    }
    pairs.clear();
    for (const upstream of unheard) upstream.destroy();
    unheard.clear();
    server = null;
    await closing;
  }

  await listen();
  return {
    port,
    cut: async ({ silent = false } = {}) => {
      if (!silent) {
        mode = "refusing";
        return stop();
      }
      mode = "silent";
      for (const pair of pairs) {
        pair.dead = true;
        pair.toUpstream = [];
        pair.toClient = [];
      }
    },
    hang: () => {
      mode = "hung";
    },
    restore: async () => {
      const wasRefusing = mode === "refusing";
      mode = "open";
      if (wasRefusing) return listen();
      for (const pair of pairs) {
        if (pair.dead) continue;
        if (pair.upstream) deliver(pair);
        else connectUpstream(pair);
      }
    },
    close: () => {
      mode = "refusing";
      return stop();
    },
  };
}
