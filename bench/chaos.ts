import { config, settleConfig } from "@/lib/config";
import { closePool } from "@/lib/db/pool";
import { startCluster } from "@/scripts/cluster/index";
import { ensureFreshBuild, startApp } from "@/server/app-process";
import { boot } from "@/server/boot";
import { isAlive } from "@/tests/support/faults";
import { rawRequest } from "@/tests/support/http";
import { visitContinuously } from "@/tests/support/load";
import { rawScansOf } from "@/tests/support/scan-stream";
import { startTcpCut, type TcpCut } from "@/tests/support/tcp-cut";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { seedSpreadLinks, type SpreadLinks } from "./spread-links";

/**
 * `npm run chaos`: continuous visits over thousands of links every instance has seen, and one fault
 * at a time on the real processes. One `npm start` instance (PostgreSQL behind a TCP forwarder it
 * can cut): PostgreSQL cut off, cut off in silence (the open connections never answer again), hung,
 * its backends terminated, and a flood of slow request bodies. With `--cluster`, `npm run
 * cluster`'s layout through HAProxy: a NATS node killed, an instance killed, the primary crashed,
 * the replica lagging, and the slow bodies. For each: visits answered and failed, scans recorded
 * against those expected, whether every process lived, and how long after the fault's end a link
 * never looked up resolved again and the scan writer committed again (recovery). Targets: 0
 * failed, 0 lost, alive, recovery within 5 s. The part that fits CI's time runs as
 * tests/server/database-faults.test.ts, slow-bodies.test.ts and tests/cluster/cluster.test.ts.
 */
const { values: options } = parseArgs({
  options: {
    links: { type: "string", default: "5000" },
    seconds: { type: "string", default: "20" },
    /** The cluster's faults (`npm run cluster`'s layout) instead of one instance's. */
    cluster: { type: "boolean", default: false },
    /** Only these faults, by key (comma-separated): cut, silent, hang, terminate, bodies; nats, instance, primary, lag, bodies. */
    faults: { type: "string" },
    /** Visits a second, all visitors together; unpaced when absent. */
    rate: { type: "string" },
  },
});
const LINKS = Number(options.links);
const RATE = options.rate ? Number(options.rate) : undefined;
const FAULT_MS = Number(options.seconds) * 1000;
const SHORT_HOST = "s.chaos.example";
const VISITORS = 16;

type Fault = { key: string; name: string; start(): Promise<void>; end(): Promise<void> };

/** What the visitors reach (one instance, or HAProxy in front of the cluster), and whether every process of it lived. */
type Target = { url: string; port: number; alive(): boolean };
type Row = {
  fault: string;
  answered: number;
  failed: number;
  recorded: number;
  expected: number;
  alive: boolean;
  /** After the fault's end, until a link never looked up before redirects. */
  recoveryMs: number;
  /** After the fault's end, until the scan writer commits a batch again. */
  writerRecoveryMs: number;
  /** The slowest /api/health answer during the fault (a readiness probe's view). */
  slowestHealthMs: number;
};

/** Asks /api/health every 500 ms until stopped; resolves to the slowest answer's time (Infinity when one took over 5 s). */
function probeHealth(app: Target): { stop(): Promise<number> } {
  let running = true;
  let slowest = 0;
  const probing = (async () => {
    while (running) {
      const started = Date.now();
      const answered = await fetch(`${app.url}/api/health`, { signal: AbortSignal.timeout(5000) }).then(
        async (response) => (await response.arrayBuffer(), true),
        () => false,
      );
      slowest = Math.max(slowest, answered ? Date.now() - started : Infinity);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await probing;
      return slowest;
    },
  };
}

/** Scan batches committed so far (each write claims its batch's id in scan_batches). */
async function batchesWritten(observer: pg.Pool): Promise<number> {
  const { rows } = await observer.query<{ written: string }>("SELECT count(*) AS written FROM scan_batches");
  return Number(rows[0]!.written);
}

/**
 * Until the scan writer commits a batch again. Nothing commits while the database is away; a
 * fault that leaves it (slow bodies) has the writer at work at once.
 */
async function writerRecoveryMs(observer: pg.Pool): Promise<number> {
  const started = Date.now();
  // A primary just back may refuse a moment longer; the count then is the one before the fault's end.
  let atEnd: number | undefined;
  while (Date.now() - started < 60_000) {
    const now = await batchesWritten(observer).catch(() => undefined);
    if (now !== undefined && atEnd === undefined) atEnd = now;
    else if (now !== undefined && atEnd !== undefined && now > atEnd) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Infinity;
}

/** Until a link the instance has never looked up redirects: the database is read again. */
async function recoveryMs(app: Target, links: SpreadLinks, unseen: () => number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < 60_000) {
    const answer = await rawRequest(app.url, `/${links.prefix}${unseen()}`, { host: SHORT_HOST }).catch(() => null);
    if (answer?.status === 302) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Infinity;
}

async function settledScans(databaseUrl: string, links: SpreadLinks): Promise<number> {
  let last = -1;
  for (;;) {
    const now = await rawScansOf(databaseUrl, { ids: links.linkIds });
    if (now === last) return now;
    last = now;
    await new Promise((resolve) => setTimeout(resolve, 3000));
  }
}

async function runFault(
  app: Target,
  observer: pg.Pool,
  databaseUrl: string,
  links: SpreadLinks,
  warm: string[],
  fault: Fault,
  unseen: () => number,
) {
  const before = await settledScans(databaseUrl, links);
  const load = visitContinuously(app.url, SHORT_HOST, warm, VISITORS, RATE);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  await fault.start();
  const health = probeHealth(app);
  await new Promise((resolve) => setTimeout(resolve, FAULT_MS));
  const slowestHealthMs = await health.stop();
  await fault.end();
  const [recovery, writerRecovery] = await Promise.all([recoveryMs(app, links, unseen), writerRecoveryMs(observer)]);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  await load.stop();
  const recorded = (await settledScans(databaseUrl, links)) - before;
  // The recovery probe's visits count as scans too, one per attempt that redirected.
  return {
    fault: fault.name,
    answered: load.redirects,
    failed: load.other,
    recorded: recorded - 1,
    expected: load.redirects,
    alive: app.alive(),
    recoveryMs: recovery,
    writerRecoveryMs: writerRecovery,
    slowestHealthMs,
  } satisfies Row;
}

function slowBodies(app: Target): Fault {
  let sockets: import("node:net").Socket[] = [];
  let timers: NodeJS.Timeout[] = [];
  return {
    key: "bodies",
    name: `800 slow request bodies for ${FAULT_MS / 1000} s`,
    start: async () => {
      const { connect } = await import("node:net");
      for (let index = 0; index < 800; index++) {
        const socket = connect(app.port, "127.0.0.1");
        socket.on("error", () => undefined);
        socket.write(
          "POST /api/links HTTP/1.1\r\nHost: app.chaos.example\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
        );
        timers.push(setInterval(() => socket.write(" "), 2000));
        sockets.push(socket);
      }
    },
    end: async () => {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      sockets = [];
      timers = [];
    },
  };
}

function table(rows: Row[]): string {
  const lines = rows.map(
    (row) =>
      `| ${row.fault} | ${row.answered} | ${row.failed} | ${row.recorded} of ${row.expected} | ${row.alive ? "yes" : "**no**"} | ${seconds(
        row.recoveryMs,
      )} | ${seconds(row.writerRecoveryMs)} | ${seconds(row.slowestHealthMs)} |`,
  );
  return [
    "| fault | visits answered | failed | scans recorded | alive | recovery (lookups) | recovery (writer) | slowest health answer |",
    "|---|---:|---:|---:|---|---:|---:|---:|",
    ...lines,
  ].join("\n");
}

function seconds(ms: number): string {
  return Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : "over 5 s";
}

/** A pool of one connection that reconnects after a fault took its connection. */
function observerPool(databaseUrl: string): pg.Pool {
  const observer = new pg.Pool({ connectionString: databaseUrl, max: 1, connectionTimeoutMillis: 2000 });
  observer.on("error", () => undefined);
  return observer;
}

/** The faults named by --faults (all of them without it), one at a time; a row each, until a process dies. */
async function runFaults(
  target: Target,
  observer: pg.Pool,
  databaseUrl: string,
  links: SpreadLinks,
  warm: string[],
  faults: Fault[],
  unseen: () => number,
): Promise<Row[]> {
  const only = options.faults?.split(",");
  const rows: Row[] = [];
  for (const fault of faults.filter((candidate) => !only || only.includes(candidate.key))) {
    console.log(`fault: ${fault.name}`);
    const row = await runFault(target, observer, databaseUrl, links, warm, fault, unseen);
    console.log(JSON.stringify(row));
    rows.push(row);
    if (!row.alive) break;
  }
  return rows;
}

async function visitEach(url: string, slugs: string[]): Promise<void> {
  for (const slug of slugs) await rawRequest(url, `/${slug}`, { host: SHORT_HOST });
}

async function oneInstance(): Promise<void> {
  await boot();
  ensureFreshBuild({ showOutput: true });
  const databaseUrl = config().DATABASE_URL!;
  const links = await seedSpreadLinks(LINKS * 2);
  const cut: TcpCut = await startTcpCut(Number(new URL(databaseUrl).port || 5432));
  const throughCut = new URL(databaseUrl);
  throughCut.port = String(cut.port);
  const app = await startApp("front", {
    DATABASE_URL: throughCut.toString(),
    AUTH_SECRET: config().AUTH_SECRET,
    SHORT_BASE_URL: `http://${SHORT_HOST}`,
    BASE_URL: "http://app.chaos.example",
    RECHECK_INTERVAL_SECONDS: "0",
    TRUSTED_PROXY_HOPS: "1",
  });
  const target: Target = { url: app.url, port: app.port, alive: () => isAlive(app.pid) };
  const warm = Array.from({ length: LINKS }, (_, index) => `${links.prefix}${index}`);
  await visitEach(app.url, warm);
  let nextUnseen = LINKS;
  const unseen = () => nextUnseen++;
  const observer = observerPool(databaseUrl);
  const database = new URL(databaseUrl).pathname.slice(1);
  const faults: Fault[] = [
    { key: "cut", name: `PostgreSQL cut off for ${FAULT_MS / 1000} s`, start: () => cut.cut(), end: () => cut.restore() },
    {
      key: "silent",
      name: `PostgreSQL cut off in silence for ${FAULT_MS / 1000} s (the open connections never answer again)`,
      start: () => cut.cut({ silent: true }),
      end: () => cut.restore(),
    },
    { key: "hang", name: `PostgreSQL hangs for ${FAULT_MS / 1000} s`, start: async () => cut.hang(), end: () => cut.restore() },
    {
      key: "terminate",
      name: `PostgreSQL's backends terminated, then ${FAULT_MS / 1000} s`,
      start: async () => {
        await observer.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
          [database],
        );
      },
      end: async () => undefined,
    },
    slowBodies(target),
  ];
  let rows: Row[] = [];
  try {
    rows = await runFaults(target, observer, databaseUrl, links, warm, faults, unseen);
  } finally {
    await app.stop();
    await cut.close();
    await observer.end();
    await closePool();
  }
  console.log(
    `\nOne instance, ${VISITORS} visitors${RATE ? ` at ${RATE} visits/s` : ""} over ${LINKS} links it had seen; ` +
      `${new Date().toISOString()}\n\n${table(rows)}`,
  );
}

/**
 * `--cluster`: `npm run cluster`'s layout (HAProxy, three instances, a primary and its replica,
 * Redis, three NATS nodes), visited through HAProxy. "Alive" there: no instance restarted but the
 * one killed on purpose, restarted once.
 */
async function cluster(): Promise<void> {
  await boot();
  const dir = await mkdtemp(path.join(tmpdir(), "permalink-chaos-"));
  const started = await startCluster({
    dir,
    instances: 3,
    env: {
      AUTH_SECRET: config().AUTH_SECRET,
      SHORT_BASE_URL: `http://${SHORT_HOST}`,
      BASE_URL: "http://app.chaos.example",
      RECHECK_INTERVAL_SECONDS: "0",
    },
  });
  // This process's own writes (the links) go to the cluster's primary.
  await closePool();
  settleConfig({ DATABASE_URL: started.primaryUrl });
  const databaseUrl = started.primaryUrl;
  const observer = observerPool(databaseUrl);
  const replica = observerPool(started.replicaUrl);
  let expectedStarts = started.instances.map(() => 1);
  const target: Target = {
    url: started.url,
    port: Number(new URL(started.url).port),
    alive: () => started.instances.every((instance, index) => instance.starts === expectedStarts[index]),
  };
  let rows: Row[] = [];
  try {
    const links = await seedSpreadLinks(LINKS * 2);
    // Wait for the replica to have them, then each instance sees every warm link once.
    for (;;) {
      const { rows: found } = await replica.query("SELECT 1 FROM links WHERE id = $1", [links.linkIds.at(-1)]);
      if (found.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const warm = Array.from({ length: LINKS }, (_, index) => `${links.prefix}${index}`);
    for (const instance of started.instances) await visitEach(instance.url, warm);
    let nextUnseen = LINKS;
    const unseen = () => nextUnseen++;
    const faults: Fault[] = [
      {
        key: "nats",
        name: `a NATS node killed for ${FAULT_MS / 1000} s`,
        start: () => started.nats.kill(0),
        end: () => started.nats.restart(0),
      },
      {
        key: "instance",
        name: "an instance killed (SIGKILL), restarted by its supervisor",
        start: async () => {
          expectedStarts = expectedStarts.map((starts, index) => (index === 1 ? starts + 1 : starts));
          started.crash(1);
        },
        // Its end: the supervisor has started it again (after its backoff) and it answers.
        end: async () => {
          const instance = started.instances[1]!;
          const deadline = Date.now() + 60_000;
          while (Date.now() < deadline) {
            const answered =
              instance.starts === expectedStarts[1] &&
              (await fetch(`${instance.url}/api/health`).then(
                (response) => response.ok,
                () => false,
              ));
            if (answered) return;
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
        },
      },
      {
        key: "primary",
        name: `the primary crashed (stopped immediate) for ${FAULT_MS / 1000} s`,
        start: () => started.primary!.stop("immediate"),
        end: () => started.primary!.start(),
      },
      {
        key: "lag",
        name: `the replica 1.5 s behind (recovery_min_apply_delay) for ${FAULT_MS / 1000} s`,
        start: async () => {
          await replica.query("ALTER SYSTEM SET recovery_min_apply_delay = '1500ms'");
          await replica.query("SELECT pg_reload_conf()");
        },
        end: async () => {
          await replica.query("ALTER SYSTEM RESET recovery_min_apply_delay");
          await replica.query("SELECT pg_reload_conf()");
        },
      },
      slowBodies(target),
    ];
    rows = await runFaults(target, observer, databaseUrl, links, warm, faults, unseen);
  } finally {
    await observer.end();
    await replica.end();
    await closePool();
    await started.stop();
    await rm(dir, { recursive: true, force: true });
  }
  console.log(
    `\nThe cluster through HAProxy (3 instances), ${VISITORS} visitors${RATE ? ` at ${RATE} visits/s` : ""} over ${LINKS} ` +
      `links every instance had seen; ${new Date().toISOString()}\n\n${table(rows)}`,
  );
}

await (options.cluster ? cluster() : oneInstance());
