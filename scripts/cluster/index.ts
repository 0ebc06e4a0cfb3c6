import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { migrate } from "@/lib/db/migrate";
import { ensureFreshBuild, freePort, startApp, type RunningApp } from "../app-process";
import { startLoadBalancer } from "./haproxy";
import { startNatsCluster, waitForPort, type NatsCluster } from "./nats";
import { postgresBinDir, startOwnPrimary, startStreamingReplica, type OwnPostgres } from "./postgres";
import { stopChild } from "../child-process";
import { ensureCommands } from "./processes";

export type ClusterOptions = {
  /** Where every part keeps its data; the caller removes it. */
  dir: string;
  instances: number;
  /** The load balancer's port (a free one when absent). */
  port?: number;
  /** The primary to use; absent, the cluster initialises one of its own. */
  databaseUrl?: string;
  /** The Redis to use; absent, the cluster starts one of its own. */
  redisUrl?: string;
  /** Settings every instance gets besides the cluster's own (AUTH_SECRET, SMTP_URL, …). */
  env: Record<string, string | undefined>;
};

export type Cluster = {
  url: string;
  instances: RunningApp[];
  nats: NatsCluster;
  primaryUrl: string;
  replicaUrl: string;
  /** Ends an instance at once (SIGKILL to its front door; its application process follows), as a crash would. */
  crash(instance: number): void;
  stop(): Promise<void>;
};

/**
 * On one machine, what a production deployment runs on many: HAProxy in front of `instances` app
 * instances (each `npm start`), a PostgreSQL primary and its streaming replica, Redis, and a
 * three-node NATS cluster with JetStream. Parts the machine lacks are installed with apt when it can.
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  ensureCommands({
    haproxy: "haproxy",
    "nats-server": "nats-server",
    ...(options.redisUrl ? {} : { "redis-server": "redis-server" }),
  });
  if (!postgresBinDir()) ensureCommands({ pg_basebackup: "postgresql" });
  ensureFreshBuild({ showOutput: true });
  await mkdir(options.dir, { recursive: true });

  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const stopPart of stops.reverse()) await stopPart().catch(() => undefined);
  };
  try {
    let ownPrimary: OwnPostgres | null = null;
    if (!options.databaseUrl) {
      ownPrimary = await startOwnPrimary(options.dir, "primary", await freePort());
      stops.push(() => ownPrimary!.stop("immediate"));
    }
    const primaryUrl = options.databaseUrl ?? ownPrimary!.url;
    // Before the copy, so the replica starts with the schema.
    await migrate(primaryUrl);
    const replica = await startStreamingReplica(primaryUrl, options.dir, "replica", await freePort());
    stops.push(() => replica.stop("immediate"));

    const redisUrl = options.redisUrl ?? (await startRedis(stops));
    await mkdir(path.join(options.dir, "nats"), { recursive: true });
    const nats = await startNatsCluster(path.join(options.dir, "nats"));
    stops.push(() => nats.stop());

    const port = options.port ?? (await freePort());
    const env = {
      BASE_URL: `http://127.0.0.1:${port}`,
      ...options.env,
      DATABASE_URL: primaryUrl,
      READ_DATABASE_URL: replica.url,
      REDIS_URL: redisUrl,
      NATS_URL: nats.urls.join(","),
      NATS_USER: nats.user,
      NATS_PASSWORD: nats.password,
      NATS_SCAN_STREAM_REPLICAS: "3",
      // HAProxy is the one hop in front of the instances: the visitor's address is the one it adds. The
      // instances listen on loopback only, where HAProxy reaches them, so no client can connect past it
      // and pass an X-Forwarded-For of its own off as HAProxy's.
      TRUSTED_PROXY_HOPS: "1",
      HOST: "127.0.0.1",
      DATA_DIR: path.join(options.dir, "app"),
    };
    const instances: RunningApp[] = [];
    stops.push(async () => void (await Promise.all(instances.map((instance) => instance.stop()))));
    // The first alone: it writes what the others then read (the development wallet's key in DATA_DIR).
    instances.push(await startApp("front", env));
    instances.push(...(await Promise.all(Array.from({ length: options.instances - 1 }, () => startApp("front", env)))));

    const balancer = await startLoadBalancer(
      options.dir,
      port,
      instances.map((instance) => `127.0.0.1:${instance.port}`),
    );
    stops.push(() => balancer.stop());
    return {
      url: balancer.url,
      instances,
      nats,
      primaryUrl,
      replicaUrl: replica.url,
      crash: (instance) => process.kill(instances[instance]!.pid, "SIGKILL"),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A Redis of the cluster's own on a free port, nothing saved to disk. */
async function startRedis(stops: (() => Promise<void>)[]): Promise<string> {
  const port = await freePort();
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: "ignore",
  });
  stops.push(() => stopChild(child));
  await waitForPort(port, child);
  return `redis://127.0.0.1:${port}`;
}
