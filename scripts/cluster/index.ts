import { migrate } from "@/lib/db/migrate";
import { ensureFreshBuild, freePort, startApp } from "@/server/app-process";
import { stopChild } from "@/server/child-process";
import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { startLoadBalancer } from "./haproxy";
import { startNatsCluster, waitForPort, type NatsCluster } from "./nats";
import type { ClusterPorts } from "./ports";
import { postgresBinDir, startOwnPrimary, startStreamingReplica, type OwnPostgres } from "./postgres";
import { ensureCommands } from "./processes";
import { supervise } from "./supervisor";

export type ClusterOptions = {
  /** Where every part keeps its data; the caller removes it. */
  dir: string;
  instances: number;
  /** Each part's port; a free one for each part not named (the balancer's included). */
  ports?: Partial<ClusterPorts>;
  /** The primary to use; absent, the cluster initialises one of its own. */
  databaseUrl?: string;
  /** The Redis to use; absent, the cluster starts one of its own. */
  redisUrl?: string;
  /** Settings every instance gets besides the cluster's own (AUTH_SECRET, SMTP_URL, …). */
  env: Record<string, string | undefined>;
  /** Whether a missing program may be installed with apt (the command's default); tests never install, they say what is missing. */
  install?: boolean;
};

/** An app instance under the cluster's supervisor: started again on its port whenever it ends. */
export type ClusterInstance = {
  url: string;
  port: number;
  /** The front door's process now (a new one after each restart). */
  readonly pid: number;
  /** How many times it was started, the first included. */
  readonly starts: number;
  stop(): Promise<void>;
};

export type Cluster = {
  url: string;
  instances: ClusterInstance[];
  nats: NatsCluster;
  primaryUrl: string;
  replicaUrl: string;
  /**
   * The cluster's own primary (null when it was given one), for a fault drill: `stop("immediate")`
   * is a crash as far as PostgreSQL can tell; `start()` brings it back on its port and its data.
   */
  primary: Pick<OwnPostgres, "start" | "stop"> | null;
  /** The replica, to stop or lag (recovery_min_apply_delay) in a fault drill. */
  replica: Pick<OwnPostgres, "start" | "stop">;
  /** Ends an instance at once (SIGKILL to its front door; its application process follows), as a crash would; it is started again. */
  crash(instance: number): void;
  stop(): Promise<void>;
};

/**
 * On one machine, what a production deployment runs on many: HAProxy in front of `instances` app
 * instances (each `npm start`), a PostgreSQL primary and its streaming replica, Redis, and a
 * three-node NATS cluster with JetStream. Parts the machine lacks are installed with apt when it can
 * and `install` allows.
 * Each instance is supervised: when it ends unasked, it is started again on its port, after a backoff.
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const install = options.install ?? true;
  ensureCommands(
    {
      haproxy: "haproxy",
      "nats-server": "nats-server",
      ...(options.redisUrl ? {} : { "redis-server": "redis-server" }),
      ...(postgresBinDir() ? {} : { pg_basebackup: "postgresql" }),
    },
    { install },
  );
  await ensureFreshBuild({ showOutput: true });
  await mkdir(options.dir, { recursive: true });

  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const stopPart of stops.reverse()) await stopPart().catch(() => undefined);
  };
  const ports = options.ports ?? {};
  try {
    let ownPrimary: OwnPostgres | null = null;
    if (!options.databaseUrl) {
      ownPrimary = await startOwnPrimary(options.dir, "primary", ports.primary ?? (await freePort()));
      stops.push(() => ownPrimary!.stop("immediate"));
    }
    const primaryUrl = options.databaseUrl ?? ownPrimary!.url;
    // Before the copy, so the replica starts with the schema.
    await migrate(primaryUrl);
    const replica = await startStreamingReplica(primaryUrl, options.dir, "replica", ports.replica ?? (await freePort()));
    stops.push(() => replica.stop("immediate"));

    const redisUrl = options.redisUrl ?? (await startRedis(stops, ports.redis ?? (await freePort())));
    await mkdir(path.join(options.dir, "nats"), { recursive: true });
    const nats = await startNatsCluster(path.join(options.dir, "nats"), { clients: ports.natsClients, routes: ports.natsRoutes });
    stops.push(() => nats.stop());

    const port = ports.balancer ?? (await freePort());
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
    const instancePorts: number[] = [];
    for (let index = 0; index < options.instances; index++) instancePorts.push(ports.instances?.[index] ?? (await freePort()));
    const instances: ClusterInstance[] = [];
    stops.push(async () => void (await Promise.all(instances.map((instance) => instance.stop()))));
    // The first alone: it writes what the others then read (the development wallet's key in DATA_DIR).
    instances.push(await startInstance(instancePorts[0]!, env));
    instances.push(...(await Promise.all(instancePorts.slice(1).map((instancePort) => startInstance(instancePort, env)))));

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
      primary: ownPrimary,
      replica,
      crash: (instance) => process.kill(instances[instance]!.pid, "SIGKILL"),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** An instance (`npm start`) on its port, started again whenever it ends unasked. */
async function startInstance(port: number, env: Record<string, string | undefined>): Promise<ClusterInstance> {
  const supervised = await supervise(`the instance on port ${port}`, () => startApp("front", env, port));
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get pid() {
      return supervised.current().pid;
    },
    get starts() {
      return supervised.starts();
    },
    stop: () => supervised.stop(),
  };
}

/** A Redis of the cluster's own on `port`, nothing saved to disk. */
async function startRedis(stops: (() => Promise<void>)[], port: number): Promise<string> {
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: "ignore",
  });
  stops.push(() => stopChild(child));
  await waitForPort(port, child);
  return `redis://127.0.0.1:${port}`;
}
