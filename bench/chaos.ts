import { parseArgs } from "node:util";
import pg from "pg";
import { config } from "@/lib/config";
import { closePool } from "@/lib/db/pool";
import { ensureFreshBuild, startApp, type RunningApp } from "@/scripts/app-process";
import { boot } from "@/scripts/boot";
import { rawRequest } from "@/tests/support/http";
import { isAlive } from "@/tests/support/faults";
import { visitContinuously } from "@/tests/support/load";
import { rawScansOf } from "@/tests/support/scan-stream";
import { startTcpCut, type TcpCut } from "@/tests/support/tcp-cut";
import { seedSpreadLinks, type SpreadLinks } from "./spread-links";

/**
 * `npm run chaos`: one `npm start` instance under continuous visits over thousands of links it has
 * seen, and one fault at a time on the real processes: PostgreSQL cut off, its backends
 * terminated, a flood of slow request bodies. For each: visits answered and failed, scans recorded
 * against those expected, whether the process lived, and how long after the fault's end a link it
 * had never seen resolved again (recovery). Targets: 0 failed, 0 lost, alive, recovery within 5 s.
 * The part that fits CI's time runs as tests/server/database-faults.test.ts and slow-bodies.test.ts.
 */
const { values: options } = parseArgs({
  options: { links: { type: "string", default: "5000" }, seconds: { type: "string", default: "20" } },
});
const LINKS = Number(options.links);
const FAULT_MS = Number(options.seconds) * 1000;
const SHORT_HOST = "s.chaos.example";
const VISITORS = 16;

type Fault = { name: string; start(): Promise<void>; end(): Promise<void> };
type Row = {
  fault: string;
  answered: number;
  failed: number;
  recorded: number;
  expected: number;
  alive: boolean;
  recoveryMs: number;
  /** The slowest /api/health answer during the fault (a readiness probe's view). */
  slowestHealthMs: number;
};

/** Asks /api/health every 500 ms until stopped; resolves to the slowest answer's time (Infinity when one took over 5 s). */
function probeHealth(app: RunningApp): { stop(): Promise<number> } {
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

/** Until a link the instance has never looked up redirects: the database is read again. */
async function recoveryMs(app: RunningApp, links: SpreadLinks, unseen: () => number): Promise<number> {
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
  app: RunningApp,
  databaseUrl: string,
  links: SpreadLinks,
  warm: string[],
  fault: Fault,
  unseen: () => number,
) {
  const before = await settledScans(databaseUrl, links);
  const load = visitContinuously(app.url, SHORT_HOST, warm, VISITORS);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  await fault.start();
  const health = probeHealth(app);
  await new Promise((resolve) => setTimeout(resolve, FAULT_MS));
  const slowestHealthMs = await health.stop();
  await fault.end();
  const recovery = await recoveryMs(app, links, unseen);
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
    alive: isAlive(app.pid),
    recoveryMs: recovery,
    slowestHealthMs,
  } satisfies Row;
}

function slowBodies(app: RunningApp): Fault {
  let sockets: import("node:net").Socket[] = [];
  let timers: NodeJS.Timeout[] = [];
  return {
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
      )} | ${seconds(row.slowestHealthMs)} |`,
  );
  return [
    "| fault | visits answered | failed | scans recorded | alive | recovery | slowest health answer |",
    "|---|---:|---:|---:|---|---:|---:|",
    ...lines,
  ].join("\n");
}

function seconds(ms: number): string {
  return Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : "over 5 s";
}

async function main(): Promise<void> {
  await boot();
  await ensureFreshBuild({ showOutput: true });
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
  const warm = Array.from({ length: LINKS }, (_, index) => `${links.prefix}${index}`);
  for (const slug of warm) await rawRequest(app.url, `/${slug}`, { host: SHORT_HOST });
  let nextUnseen = LINKS;
  const unseen = () => nextUnseen++;
  const observer = new pg.Client({ connectionString: databaseUrl });
  await observer.connect();
  const database = new URL(databaseUrl).pathname.slice(1);
  const faults: Fault[] = [
    { name: `PostgreSQL cut off for ${FAULT_MS / 1000} s`, start: () => cut.cut(), end: () => cut.restore() },
    {
      name: `PostgreSQL's backends terminated, then ${FAULT_MS / 1000} s`,
      start: async () => {
        await observer.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
          [database],
        );
      },
      end: async () => undefined,
    },
    slowBodies(app),
  ];
  const rows: Row[] = [];
  try {
    for (const fault of faults) {
      console.log(`fault: ${fault.name}`);
      const row = await runFault(app, databaseUrl, links, warm, fault, unseen);
      console.log(JSON.stringify(row));
      rows.push(row);
      if (!row.alive) break;
    }
  } finally {
    await app.stop();
    await cut.close();
    await observer.end();
    await closePool();
  }
  console.log(
    `\nOne instance, ${VISITORS} visitors over ${LINKS} links it had seen; ${new Date().toISOString()}\n\n${table(rows)}`,
  );
}

await main();
