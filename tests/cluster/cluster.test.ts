import { config, resetConfig } from "@/lib/config";
import { disconnectDb } from "@/lib/db/client";
import { type Cluster, startCluster } from "@/scripts/cluster/index";
import type { ClusterPorts } from "@/scripts/cluster/ports";
import { freePort } from "@/server/app-process";
import { type ConsumerInfo, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newLinks } from "../support/api";
import { TEST_ZONE } from "../support/dns-server";
import { type FakeDnsServer, startFakeDnsServer } from "../support/fake-dns-server";
import { answerOn, rawRequest } from "../support/http";
import { visitContinuously } from "../support/load";
import { eventually, rawScansOf } from "../support/scan-stream";

/**
 * `npm run cluster`'s layout, started as that command starts it: HAProxy in front of three
 * instances, a PostgreSQL primary and its streaming replica, Redis, and three NATS nodes. Faults
 * under continuous visits: a NATS node killed, then an app instance killed with SIGKILL.
 */
const SHORT_HOST = "s.test.example";
const testDatabaseUrl = process.env.DATABASE_URL!;
let dns: FakeDnsServer;
let dir: string;
let cluster: Cluster;
let ports: ClusterPorts;

/** This process's own calls (users, links, counts) go to the cluster's primary. */
async function useDatabase(url: string): Promise<void> {
  await disconnectDb();
  process.env.DATABASE_URL = url;
  resetConfig();
}

const visit = (slug: string) => rawRequest(cluster.url, `/${slug}`, { host: SHORT_HOST });
const scansOf = (slugs: string[]) => rawScansOf(cluster.primaryUrl, { slugs });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The scan writers' shared consumer, as the NATS cluster reports it now. */
async function writersConsumer(): Promise<ConsumerInfo> {
  const connection = await connect({ servers: cluster.nats.urls, user: cluster.nats.user, pass: cluster.nats.password });
  try {
    return await (await jetstreamManager(connection)).consumers.info(config().NATS_SCAN_STREAM, "scan-writer");
  } finally {
    await connection.close();
  }
}

/** The index of the NATS node (n1, n2, …) leading the consumer: the one holding the writers' pull requests. */
const consumerLeader = async () => Number((await writersConsumer()).cluster!.leader!.replace(/^n/, "")) - 1;

/** Scan messages in the stream not yet written: waiting for a writer, or taken by one and not acknowledged. */
const unwrittenInStream = async () => {
  const { num_pending, num_ack_pending } = await writersConsumer();
  return num_pending + num_ack_pending;
};

/** Links visited once each through the cluster (so cached), their first scans written. */
async function warmLinks(count: number): Promise<string[]> {
  const slugs = await newLinks(count, "cluster");
  for (const slug of slugs) expect((await visit(slug)).status).toBe(302);
  await eventually(async () => expect(await scansOf(slugs)).toBe(slugs.length), 30_000);
  return slugs;
}

beforeAll(async () => {
  dns = await startFakeDnsServer({}, { a: [TEST_ZONE.publicAddress] });
  dir = await mkdtemp(path.join(tmpdir(), "permalink-cluster-"));
  const free = async (count: number) => Promise.all(Array.from({ length: count }, () => freePort()));
  ports = {
    balancer: await freePort(),
    instances: await free(3),
    primary: await freePort(),
    replica: await freePort(),
    redis: await freePort(),
    natsClients: await free(3),
    natsRoutes: await free(3),
  };
  cluster = await startCluster({
    dir,
    instances: 3,
    ports,
    // .ci/run installs HAProxy; a test never installs system packages.
    install: false,
    env: {
      AUTH_SECRET: process.env.AUTH_SECRET,
      DNS_RESOLVER: dns.resolver,
      SHORT_BASE_URL: `http://${SHORT_HOST}`,
      BASE_URL: "http://app.test.example",
      RECHECK_INTERVAL_SECONDS: "0",
    },
  });
  await useDatabase(cluster.primaryUrl);
}, 600_000);

afterAll(async () => {
  await useDatabase(testDatabaseUrl);
  await cluster?.stop();
  await dns?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 120_000);

describe("a cluster behind HAProxy", () => {
  it("resolves a link created on the primary at once, through every instance and the replica", async () => {
    const [slug] = await newLinks(1, "cluster");
    const answers = await Promise.all(
      cluster.instances.map((instance) => rawRequest(instance.url, `/${slug}`, { host: SHORT_HOST })),
    );
    expect(answers.map((answer) => answer.status)).toEqual([302, 302, 302]);
  });

  it("puts each part on the port it was given, for a fault drill", async () => {
    expect(cluster.url).toBe(`http://127.0.0.1:${ports.balancer}`);
    expect(cluster.instances.map((instance) => instance.port)).toEqual(ports.instances);
    expect(new URL(cluster.primaryUrl).port).toBe(String(ports.primary));
    expect(new URL(cluster.replicaUrl).port).toBe(String(ports.replica));
    expect(cluster.nats.urls).toEqual(ports.natsClients.map((port) => `nats://127.0.0.1:${port}`));
    for (const port of [ports.redis, ...ports.natsRoutes]) expect(await answerOn("127.0.0.1", port)).not.toBe("ECONNREFUSED");
  });

  it("lets no client reach an instance past HAProxy: each listens on 127.0.0.1 alone, not 127.0.0.2", async () => {
    for (const instance of cluster.instances) {
      expect(await answerOn("127.0.0.1", instance.port)).toBe(200);
      expect(await answerOn("127.0.0.2", instance.port)).toBe("ECONNREFUSED");
    }
  });

  it("loses no scan when the NATS node leading the scan writers is killed under load, and writes on within seconds", async () => {
    const slugs = await warmLinks(20);
    // The node holding the consumer's pull requests: the writers must notice they are gone.
    const leader = await consumerLeader();
    const load = visitContinuously(cluster.url, SHORT_HOST, slugs);
    await pause(3000);
    await cluster.nats.kill(leader);
    await pause(5000);
    await load.stop();
    expect(load.other).toBe(0);
    expect(load.redirects).toBeGreaterThan(100);
    await eventually(async () => expect(await scansOf(slugs)).toBe(slugs.length + load.redirects), 20_000);
    await cluster.nats.restart(leader);
  }, 120_000);

  it("keeps answering when an instance is killed with SIGKILL, losing at most a second of its scans", async () => {
    const slugs = await warmLinks(20);
    const seconds = 8;
    const load = visitContinuously(cluster.url, SHORT_HOST, slugs);
    await pause(3000);
    cluster.crash(1);
    await pause((seconds - 3) * 1000);
    await load.stop();
    // Only requests the killed instance was answering at that moment can fail: one a client at most.
    expect(load.other).toBeLessThanOrEqual(8);
    expect(load.redirects).toBeGreaterThan(100);
    const perSecond = load.redirects / seconds;
    // Settled: the stream holds nothing, not even what the killed instance had taken and not
    // acknowledged, and the count stands still (the others' last flushes have been published and written).
    let written = 0;
    await eventually(async () => {
      expect(await unwrittenInStream()).toBe(0);
      const before = await scansOf(slugs);
      await pause(1500);
      written = await scansOf(slugs);
      expect(written).toBe(before);
    }, 60_000);
    const lost = slugs.length + load.redirects - written;
    expect(lost).toBeGreaterThanOrEqual(0);
    expect(lost).toBeLessThanOrEqual(perSecond);
    console.log(
      `an instance killed under ${perSecond.toFixed(0)} visits/s through HAProxy: ${lost} scans lost, ${load.other} visits failed`,
    );
  }, 120_000);

  it("starts an instance killed with SIGKILL again, on its own port, where HAProxy checks it", async () => {
    const [slug] = await warmLinks(1);
    const instance = cluster.instances[2]!;
    const { pid, starts } = instance;
    cluster.crash(2);
    await eventually(async () => {
      expect(instance.pid).not.toBe(pid);
      expect((await rawRequest(instance.url, `/${slug}`, { host: SHORT_HOST })).status).toBe(302);
    }, 90_000);
    expect(instance.starts).toBe(starts + 1);
  }, 150_000);
});

describe("the cluster's primary crashed under load (last: it ends every connection to the primary)", () => {
  it("answers every visit, resolves from the replica what only it can give, restarts no instance, and writes every scan", async () => {
    const slugs = await warmLinks(20);
    // Created on the primary and streamed to the replica, never visited: no instance has them cached.
    const cold = await newLinks(6, "cluster-cold");
    await pause(2000);
    const before = cluster.instances.map((instance) => ({ pid: instance.pid, starts: instance.starts }));
    const load = visitContinuously(cluster.url, SHORT_HOST, slugs, 4, 1000);
    await pause(2000);
    await cluster.primary!.stop("immediate");
    // The replica's monitor sees the primary gone within its tick, and reads turn to the replica.
    await pause(3000);
    const coldAnswers: number[] = [];
    for (const slug of cold) coldAnswers.push((await visit(slug)).status);
    await pause(2000);
    await cluster.primary!.start();
    const atRestart = await scansOf(slugs);
    const restarted = Date.now();
    let recoveryMs = Infinity;
    while (Date.now() - restarted < 30_000) {
      if ((await scansOf(slugs)) > atRestart) {
        recoveryMs = Date.now() - restarted;
        break;
      }
      await pause(100);
    }
    await pause(2000);
    await load.stop();
    console.log(
      `the primary crashed for 7 s under ${load.redirects} visits: ${load.other} failed, cold visits ${coldAnswers.join(" ")}, ` +
        `scans written again ${recoveryMs} ms after it was back`,
    );
    expect(load.other).toBe(0);
    expect(coldAnswers).toEqual(cold.map(() => 302));
    expect(cluster.instances.map((instance) => ({ pid: instance.pid, starts: instance.starts }))).toEqual(before);
    expect(recoveryMs).toBeLessThanOrEqual(5000);
    await eventually(
      async () => expect(await scansOf([...slugs, ...cold])).toBe(slugs.length + load.redirects + cold.length),
      60_000,
    );
  }, 180_000);
});
