import { freePort } from "@/server/app-process";
import { stopChild } from "@/server/child-process";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { connect as connectTcp } from "node:net";
import path from "node:path";
import { NATS_NODES } from "./ports";

/** NATS servers clustered on loopback, each with JetStream on its own disk directory. */
export type NatsCluster = {
  /** Every node's client URL, as NATS_URL takes them (comma-separated), without the credentials. */
  urls: string[];
  /** The one user the nodes admit, and its password (the run's own). */
  user: string;
  password: string;
  /** Ends a node at once (SIGKILL), as a crashed machine would. */
  kill(node: number): Promise<void>;
  /** Starts a killed node again, on its ports and its data. */
  restart(node: number): Promise<void>;
  stop(): Promise<void>;
};

type Node = { name: string; clientPort: number; routePort: number; configFile: string; process: ChildProcess | null };

/** Who may connect: clients as `user`, the other nodes' routes as `routes`, each with a password of its own. */
type Credentials = { user: string; password: string; routePassword: string };

const CLIENT_USER = "permalink";
const ROUTE_USER = "route";

/**
 * Starts `size` nats-server processes (Debian's `nats-server`) that route to each other as one
 * JetStream cluster. With three nodes, a stream of 3 replicas keeps accepting and serving messages
 * while any one node is down.
 */
export async function startNatsCluster(
  dir: string,
  ports: { clients?: number[]; routes?: number[] } = {},
  size = NATS_NODES,
): Promise<NatsCluster> {
  const nodes: Node[] = [];
  for (let index = 0; index < size; index++) {
    nodes.push({
      name: `n${index + 1}`,
      clientPort: ports.clients?.[index] ?? (await freePort()),
      routePort: ports.routes?.[index] ?? (await freePort()),
      configFile: path.join(dir, `n${index + 1}.conf`),
      process: null,
    });
  }
  const credentials = {
    user: CLIENT_USER,
    password: randomBytes(18).toString("hex"),
    routePassword: randomBytes(18).toString("hex"),
  };
  const routes = nodes.map((node) => `nats-route://${ROUTE_USER}:${credentials.routePassword}@127.0.0.1:${node.routePort}`);
  for (const node of nodes) {
    const storeDir = path.join(dir, node.name);
    await mkdir(storeDir, { recursive: true });
    await writeFile(node.configFile, configFor(node, storeDir, routes, credentials), { mode: 0o600 });
  }
  const start = async (node: Node) => {
    node.process = spawn("nats-server", ["-c", node.configFile], { stdio: "ignore" });
    await waitForPort(node.clientPort, node.process);
  };
  await Promise.all(nodes.map(start));
  return {
    urls: nodes.map((node) => `nats://127.0.0.1:${node.clientPort}`),
    user: credentials.user,
    password: credentials.password,
    kill: async (index) => {
      const node = nodes[index]!;
      if (node.process) await stopChild(node.process, "SIGKILL");
      node.process = null;
    },
    restart: (index) => start(nodes[index]!),
    stop: async () => {
      await Promise.all(nodes.map((node) => (node.process ? stopChild(node.process) : undefined)));
    },
  };
}

function configFor(node: Node, storeDir: string, routes: string[], credentials: Credentials): string {
  return [
    `server_name: ${node.name}`,
    `listen: 127.0.0.1:${node.clientPort}`,
    `authorization { user: "${credentials.user}", password: "${credentials.password}" }`,
    `jetstream { store_dir: "${storeDir}" }`,
    "cluster {",
    "  name: permalink",
    `  listen: 127.0.0.1:${node.routePort}`,
    `  authorization { user: "${ROUTE_USER}", password: "${credentials.routePassword}" }`,
    `  routes: [${routes.join(", ")}]`,
    "}",
    "",
  ].join("\n");
}

/** Resolves once something accepts connections on the port; fails if the process ends first. */
export async function waitForPort(port: number, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`${child.spawnfile} exited with ${child.exitCode} before it listened on ${port}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connectTcp(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${child.spawnfile} did not listen on ${port} within ${timeoutMs / 1000} s`);
}
