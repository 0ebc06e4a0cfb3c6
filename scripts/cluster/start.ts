import { log } from "@/lib/log";
import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import path from "node:path";
import { startCluster } from "./index";
import { ClusterUsageError, clusterSettings } from "./ports";

/**
 * `npm run cluster`: HAProxy, CLUSTER_INSTANCES app instances (3 by default), a PostgreSQL replica,
 * Redis and a three-node NATS cluster on this machine, until Ctrl-C. `npm run cluster -- --port 3000
 * --instance-ports 3001,3002,3003 …` sets each part's port (scripts/cluster/ports.ts lists the flags). A demonstration of the
 * production layout, not a deployment: its parts' data lives in DATA_DIR/cluster and starts empty
 * each run (with DATABASE_URL set, the links live in that database and stay).
 */
async function main(): Promise<void> {
  const dir = path.resolve(process.env.DATA_DIR ?? ".data", "cluster");
  await rm(dir, { recursive: true, force: true });
  const { instances, ports } = clusterSettings(process.argv.slice(2), process.env);
  const cluster = await startCluster({
    dir,
    instances,
    ports,
    databaseUrl: process.env.DATABASE_URL || undefined,
    redisUrl: process.env.REDIS_URL || undefined,
    env: { ...process.env, AUTH_SECRET: process.env.AUTH_SECRET || randomBytes(32).toString("base64url") },
  });
  log().info(
    {
      url: cluster.url,
      instances: cluster.instances.map((instance) => instance.url),
      primary: cluster.primaryUrl,
      replica: cluster.replicaUrl,
      nats: cluster.nats.urls,
    },
    `the cluster answers at ${cluster.url}; Ctrl-C stops every part`,
  );
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    log().info("stopping the cluster");
    void cluster.stop().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error: unknown) => {
  if (error instanceof ClusterUsageError) log().fatal(error.message);
  else log().fatal({ err: error }, "the cluster could not start");
  process.exit(1);
});
