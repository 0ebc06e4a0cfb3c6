import { parseArgs } from "node:util";

/** Where each part of the cluster listens; a part without one gets a free port. */
export type ClusterPorts = {
  balancer: number;
  /** One per instance, in order. */
  instances: number[];
  primary: number;
  replica: number;
  redis: number;
  /** One per NATS node: its clients' port and its route's. */
  natsClients: number[];
  natsRoutes: number[];
};

export const NATS_NODES = 3;

export class ClusterUsageError extends Error {}

/** `npm run cluster -- …`'s flags, each one port or a comma-separated list of one per instance or node. */
export const CLUSTER_FLAGS = {
  instances: "how many app instances (CLUSTER_INSTANCES, default 3)",
  port: "HAProxy's port (PORT, default 3000)",
  "instance-ports": "the instances' ports, one per instance",
  "primary-port": "the PostgreSQL primary's port (when the cluster starts its own)",
  "replica-port": "the streaming replica's port",
  "redis-port": "Redis's port (when the cluster starts its own)",
  "nats-ports": `the NATS nodes' client ports, ${NATS_NODES}`,
  "nats-route-ports": `the NATS nodes' route ports, ${NATS_NODES}`,
} as const;

/** The instance count and ports the command line and the environment ask for, checked. */
export function clusterSettings(
  args: string[],
  env: Record<string, string | undefined>,
): { instances: number; ports: Partial<ClusterPorts> } {
  let values: Partial<Record<keyof typeof CLUSTER_FLAGS, string>>;
  try {
    values = parseArgs({
      args,
      options: Object.fromEntries(Object.keys(CLUSTER_FLAGS).map((flag) => [flag, { type: "string" }])),
    }).values as typeof values;
  } catch (error) {
    throw new ClusterUsageError(`${(error as Error).message}. ${usage()}`);
  }
  const instances = whole("instances", values.instances ?? env.CLUSTER_INSTANCES ?? "3", 1, 64);
  const ports: Partial<ClusterPorts> = {
    balancer: port("port", values.port ?? env.PORT ?? "3000"),
    instances:
      values["instance-ports"] === undefined ? undefined : portList("instance-ports", values["instance-ports"], instances),
    primary: values["primary-port"] === undefined ? undefined : port("primary-port", values["primary-port"]),
    replica: values["replica-port"] === undefined ? undefined : port("replica-port", values["replica-port"]),
    redis: values["redis-port"] === undefined ? undefined : port("redis-port", values["redis-port"]),
    natsClients: values["nats-ports"] === undefined ? undefined : portList("nats-ports", values["nats-ports"], NATS_NODES),
    natsRoutes:
      values["nats-route-ports"] === undefined ? undefined : portList("nats-route-ports", values["nats-route-ports"], NATS_NODES),
  };
  const given = Object.values(ports).flatMap((entry) => (entry === undefined ? [] : [entry].flat()));
  const repeated = given.find((entry, index) => given.indexOf(entry) !== index);
  if (repeated !== undefined) throw new ClusterUsageError(`Port ${repeated} is given to two parts of the cluster.`);
  return { instances, ports };
}

function usage(): string {
  return `Flags: ${Object.entries(CLUSTER_FLAGS)
    .map(([flag, meaning]) => `--${flag} (${meaning})`)
    .join(", ")}.`;
}

function whole(flag: string, value: string, min: number, max: number): number {
  const number = Number(value);
  if (!/^\d+$/.test(value.trim()) || number < min || number > max)
    throw new ClusterUsageError(`--${flag} must be a whole number from ${min} to ${max} (got ${JSON.stringify(value)}).`);
  return number;
}

function port(flag: string, value: string): number {
  return whole(flag, value, 1, 65535);
}

function portList(flag: string, value: string, count: number): number[] {
  const ports = value.split(",").map((entry) => port(flag, entry.trim()));
  if (ports.length !== count)
    throw new ClusterUsageError(`--${flag} must name ${count} ports, comma-separated (got ${ports.length}).`);
  return ports;
}
