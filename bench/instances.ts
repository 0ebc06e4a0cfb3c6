import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { randomBytes } from "node:crypto";
import { connect as tcpConnect } from "node:net";
import { exactVisits } from "./exact-visits";
import { scansIn, waitForScans, type BenchLink } from "./seed";
import { startServer } from "./servers";

/** The exact phase across several `npm start` instances on one database (and one NATS, when this machine runs one). */
export type InstancesExact = {
  instances: number;
  visits: number;
  redirects: number;
  other: number;
  scans: number;
  nats: boolean;
};

const NATS_URL = "nats://127.0.0.1:4222";

/**
 * For each count of instances: that many front doors on the same PostgreSQL (and NATS JetStream when
 * it answers on this machine, each instance publishing its scans to one stream and writing what the
 * shared consumer hands it), `visits` visits of one link shared among them, every answer read, then
 * scans recorded − redirects answered, which must be 0.
 */
export async function exactAcrossInstances(
  counts: number[],
  env: Record<string, string | undefined>,
  link: BenchLink,
  visits: number,
  connections: number,
  host: string,
): Promise<InstancesExact[]> {
  const nats = await answers(4222);
  const stream = `BENCH_SCANS_${randomBytes(4).toString("hex")}`;
  const instanceEnv = nats ? { ...env, NATS_URL, NATS_SCAN_STREAM: stream } : env;
  const results: InstancesExact[] = [];
  try {
    for (const count of counts) {
      const servers = await Promise.all(Array.from({ length: count }, () => startServer("front", instanceEnv)));
      try {
        const before = await scansIn(link.workspaceId);
        const answered = await Promise.all(
          servers.map((server, index) =>
            exactVisits(server.url, host, `/${link.slug}`, shareOf(visits, count, index), Math.ceil(connections / count)),
          ),
        );
        const scans = (await waitForScans(link.workspaceId)) - before;
        const redirects = answered.reduce((total, answer) => total + answer.redirects, 0);
        const other = answered.reduce((total, answer) => total + answer.other, 0);
        results.push({ instances: count, visits, redirects, other, scans, nats });
        console.log(
          `  exact across ${count} instances${nats ? " and NATS" : ""}: ${redirects} redirects, ${scans} scans recorded`,
        );
      } finally {
        await Promise.all(servers.map((server) => server.stop()));
      }
    }
  } finally {
    if (nats) await deleteStream(stream);
  }
  return results;
}

/** Instance `index`'s share of `total` visits among `count`: as even as whole visits allow. */
function shareOf(total: number, count: number, index: number): number {
  return Math.floor(total / count) + (index < total % count ? 1 : 0);
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect(port, "127.0.0.1");
    const settle = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.once("connect", () => settle(true));
    socket.once("error", () => settle(false));
    socket.setTimeout(1000, () => settle(false));
  });
}

async function deleteStream(stream: string): Promise<void> {
  const connection = await connect({ servers: NATS_URL });
  try {
    await (await jetstreamManager(connection)).streams.delete(stream).catch(() => undefined);
  } finally {
    await connection.close();
  }
}
