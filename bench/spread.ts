import { droppedSinceStartIn } from "@/lib/analytics/scan-buffer";
import { DIMENSIONS, QUARTER } from "@/lib/analytics/store/rollups";
import { config, resetConfig } from "@/lib/config";
import { closePool, pool } from "@/lib/db/pool";
import { ensureFreshBuild } from "@/server/app-process";
import { boot } from "@/server/boot";
import { mkdir, writeFile } from "node:fs/promises";
import { Agent } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { pinningNote } from "./cpus";
import { exactVisits, visitOnce } from "./exact-visits";
import { backendCpuReadable, costOf, measureBatch, type CostSample } from "./scan-cost";
import { runBenchScript, writeReadmeBlock } from "./script";
import { requireProjectNode, startServer } from "./servers";
import { randomScanRows, seedSpreadLinks, VISITOR_AGENTS, type SpreadLinks } from "./spread-links";
import { requireWrk, socketErrors, wrk } from "./wrk";

/**
 * `npm run bench` (or `npx tsx bench/spread.ts [--links 20000,1000000] [--seconds 60] [--runs 1]`):
 * visits spread over many links, as QR codes on thousands of menus and posters are scanned, each
 * a few times. For each links count: `npm start`'s front door on PostgreSQL, wrk choosing a link
 * at random a request from varied visitors (browser and address) for `seconds`, while a probe
 * visits links nobody visited yet (every one a cold miss) to time lookups during the writes. Then
 * the writer's backlog is timed until it is written, an exact phase checks scans = redirects, and
 * batches of 5,000 spread scans are written and timed for each links count in turns.
 */
const { values: options } = parseArgs({
  options: {
    links: { type: "string", default: "20000,1000000" },
    seconds: { type: "string", default: process.env.BENCH_SPREAD_SECONDS ?? "60" },
    runs: { type: "string", default: "1" },
    connections: { type: "string", default: "50" },
    "exact-visits": { type: "string", default: "5000" },
    "batch-samples": { type: "string", default: "3" },
    "no-readme": { type: "boolean", default: false },
  },
});

const LINK_COUNTS = options.links.split(",").map(Number);
const SECONDS = Number(options.seconds);
const RUNS = Number(options.runs);
const CONNECTIONS = Number(options.connections);
const EXACT_VISITS = Number(options["exact-visits"]);
const BATCH_SAMPLES = Number(options["batch-samples"]);
const SHORT_HOST = "s.bench.example";
/** Links beyond wrk's range, for the probe: each visited once, so each a cold miss. */
const PROBE_LINKS = 20_000;
const PROBE_INTERVAL_MS = 20;
/** The writer has drained once the count has not moved for this long. */
const QUIET_MS = 2000;
/** A writer still draining after this long is reported as such. */
const DRAIN_LIMIT_MS = 180_000;
const BATCH_SIZE = 5000;

type SpreadRow = {
  links: number;
  seconds: number;
  redirectsPerSecond: number;
  /** Scans committed while wrk ran, per second of it. */
  writtenPerSecond: number;
  p99Ms: number;
  /** Redirects answered − scans committed when wrk stopped. */
  lagAtEnd: number;
  /** From wrk's end until the count last moved. */
  drainSeconds: number;
  dropped: number;
  /** Scans − redirects over the whole load: 0 up to the connections wrk left in flight. */
  surplus: number;
  unexpected: number;
  coldMiss: { visits: number; p50Ms: number; p99Ms: number };
  exact: { visits: number; redirects: number; scans: number };
};

/**
 * A batch's time, and PostgreSQL's CPU a scan read from its backends (null when they are on another
 * machine), for this release's statement and, over links of their own, the release before's.
 */
type BatchTiming = {
  links: number;
  medianMs: number;
  samplesMs: number[];
  cpuUsPerScan: number | null;
  legacyCpuUsPerScan: number | null;
  legacyMedianMs: number;
};

/** Scans committed for the workspace: its own quarter-hour total rows (written in the same statement as the raw rows). */
async function committedScans(workspaceId: string): Promise<number> {
  const { rows } = await pool().query<{ scans: string }>(
    `SELECT coalesce(sum(scans + bots), 0) AS scans FROM scan_rollups
     WHERE workspace_id = $1 AND link_id = '' AND grain = $2 AND dimension = $3`,
    [workspaceId, QUARTER, DIMENSIONS.total],
  );
  return Number(rows[0]!.scans);
}

const randomBelow = (bound: number) => Math.floor(Math.random() * bound);

const randomVisitor = () => ({
  userAgent: VISITOR_AGENTS[randomBelow(VISITOR_AGENTS.length)]!,
  forwardedFor: [1 + randomBelow(223), randomBelow(256), randomBelow(256), 1 + randomBelow(254)].join("."),
});

/** Visits links from `from` on, one at a time, until stopped: each one's time, and the redirects among them. */
function startProbe(url: string, links: SpreadLinks, from: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  let redirects = 0;
  let stopped = false;
  const done = (async () => {
    for (let index = from; !stopped && index < links.count; index++) {
      const { status, ms } = await visitOnce(agent, `${url}/${links.prefix}${index}`, SHORT_HOST, randomVisitor());
      times.push(ms);
      if (status >= 300 && status < 400) redirects++;
      await sleep(PROBE_INTERVAL_MS);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await done;
      agent.destroy();
      const sorted = [...times].sort((a, b) => a - b);
      const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? 0;
      return { visits: times.length, redirects, p50Ms: at(0.5), p99Ms: at(0.99) };
    },
  };
}

/**
 * Polls until the count holds at least `atLeast` scans (less those the buffer dropped and logged),
 * then has not moved for QUIET_MS (a batch of the cold spread can take longer than that to commit,
 * so quiet alone is no sign of an empty buffer): the count, and when it last moved (ms after `since`).
 */
async function untilDrained(
  workspaceId: string,
  since: number,
  atLeast: number,
  droppedSoFar: () => number,
): Promise<{ scans: number; lastMoveMs: number }> {
  let scans = await committedScans(workspaceId);
  let lastMove = Date.now();
  const reached = () => scans + droppedSoFar() >= atLeast;
  while ((!reached() || Date.now() - lastMove < QUIET_MS) && Date.now() - since < DRAIN_LIMIT_MS) {
    await sleep(100);
    const now = await committedScans(workspaceId);
    if (now !== scans) {
      scans = now;
      lastMove = Date.now();
    }
  }
  return { scans, lastMoveMs: Math.max(0, lastMove - since) };
}

async function spreadScenario(links: SpreadLinks, wrkLinks: number, env: Record<string, string | undefined>): Promise<SpreadRow> {
  const front = await startServer("front", { ...env, TRUSTED_PROXY_HOPS: "1" });
  try {
    const before = await committedScans(links.workspaceId);
    const probe = startProbe(front.url, links, wrkLinks);
    const result = await wrk({
      url: front.url,
      paths: ["/"],
      host: SHORT_HOST,
      seconds: SECONDS,
      connections: CONNECTIONS,
      threads: 1,
      spread: { prefix: links.prefix, links: wrkLinks, agents: VISITOR_AGENTS },
    });
    const loadEnded = Date.now();
    const atEnd = await committedScans(links.workspaceId);
    const coldMiss = await probe.stop();
    const seconds = result.durationUs / 1e6;
    const redirects = result.requests - result.statusErrors + coldMiss.redirects;
    const dropped = () => droppedSinceStartIn(front.output());
    const drained = await untilDrained(links.workspaceId, loadEnded, before + redirects, dropped);
    const exactBefore = drained.scans;
    const exact = await exactVisits(
      front.url,
      SHORT_HOST,
      () => `/${links.prefix}${Math.floor(Math.random() * wrkLinks)}`,
      EXACT_VISITS,
      CONNECTIONS,
      randomVisitor,
    );
    const exactScans =
      (await untilDrained(links.workspaceId, Date.now(), exactBefore + exact.redirects, dropped)).scans - exactBefore;
    const row: SpreadRow = {
      links: links.count - PROBE_LINKS,
      seconds,
      redirectsPerSecond: Math.round(redirects / seconds),
      writtenPerSecond: Math.round((atEnd - before) / seconds),
      p99Ms: result.p99Us / 1000,
      lagAtEnd: redirects - (atEnd - before),
      drainSeconds: drained.lastMoveMs / 1000,
      dropped: dropped(),
      surplus: drained.scans - before - redirects,
      unexpected: result.statusErrors + socketErrors(result),
      coldMiss: { visits: coldMiss.visits, p50Ms: coldMiss.p50Ms, p99Ms: coldMiss.p99Ms },
      exact: { visits: EXACT_VISITS, redirects: exact.redirects, scans: exactScans },
    };
    console.log(`  ${row.links} links: ${JSON.stringify(row)}`);
    return row;
  } finally {
    await front.stop();
  }
}

/**
 * Batches of BATCH_SIZE spread scans written by the writer's statement from this process, and by the
 * release before's over links of their own (`legacy`, as many), the links counts and the two
 * designs in turns, so both meet the same load.
 */
async function timeBatches(seeded: SpreadLinks[], legacy: SpreadLinks[]): Promise<BatchTiming[]> {
  const samples = seeded.map(() => [] as CostSample[]);
  const cpuReadable = await backendCpuReadable();
  for (let sample = 0; sample < BATCH_SAMPLES; sample++) {
    for (const [index, links] of seeded.entries()) {
      samples[index]!.push(await measureBatch("legacy", await randomScanRows(legacy[index]!, BATCH_SIZE, SHORT_HOST)));
      samples[index]!.push(await measureBatch("current", await randomScanRows(links, BATCH_SIZE, SHORT_HOST)));
    }
  }
  return seeded.map((links, index) => {
    const [before, after] = [costOf(samples[index]!, "legacy"), costOf(samples[index]!, "current")];
    return {
      links: links.count - PROBE_LINKS,
      medianMs: after.medianMs,
      samplesMs: samples[index]!.filter((each) => each.design === "current").map((each) => each.wallMs),
      cpuUsPerScan: cpuReadable ? after.usPerScan : null,
      legacyCpuUsPerScan: cpuReadable ? before.usPerScan : null,
      legacyMedianMs: before.medianMs,
    };
  });
}

const thousands = (value: number) => Math.round(value).toLocaleString("en-US");
const check = (met: boolean) => (met ? "✓" : "✗");

/** This release's µs a scan, the release before's, and the ratio (target ≤ 0.5). */
function cpuCell(batch: BatchTiming | undefined): string {
  if (!batch || batch.cpuUsPerScan === null || batch.legacyCpuUsPerScan === null) return "—";
  const ratio = batch.cpuUsPerScan / batch.legacyCpuUsPerScan;
  return `${batch.cpuUsPerScan.toFixed(1)} µs (${batch.legacyCpuUsPerScan.toFixed(1)}): ×${ratio.toFixed(2)} ${check(ratio <= 0.5)}`;
}

function markdownTable(rows: SpreadRow[], batches: BatchTiming[]): string {
  const lines = [
    "| links | redirects/s | scans written/s | redirect p99 ms | lag at load end | drained after | " +
      "dropped | scans − redirects | exact phase | cold-miss p99 ms | batch of 5,000 | " +
      "PostgreSQL CPU a scan (release before) |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|",
  ];
  const smallest = batches[0];
  for (const row of rows) {
    const batch = batches.find((timing) => timing.links === row.links);
    const ratio = batch && smallest && batch !== smallest ? ` (×${(batch.medianMs / smallest.medianMs).toFixed(2)})` : "";
    lines.push(
      `| ${thousands(row.links)} | ${thousands(row.redirectsPerSecond)} | ` +
        `${thousands(row.writtenPerSecond)} ${check(row.writtenPerSecond >= row.redirectsPerSecond)} | ` +
        `${row.p99Ms.toFixed(1)} | ${thousands(row.lagAtEnd)} | ${row.drainSeconds.toFixed(1)} s ` +
        `${check(row.drainSeconds <= 5)} | ${thousands(row.dropped)} ${check(row.dropped === 0)} | ` +
        `${row.surplus >= 0 ? "+" : "−"}${thousands(Math.abs(row.surplus))} ` +
        `${check(row.surplus >= 0 && row.surplus <= CONNECTIONS)} | ${thousands(row.exact.scans)} scans ` +
        `for ${thousands(row.exact.redirects)} redirects ` +
        `${check(row.exact.scans === row.exact.redirects && row.exact.redirects === row.exact.visits)} | ` +
        `${row.coldMiss.p99Ms.toFixed(1)} ${check(row.coldMiss.p99Ms <= 25)} | ` +
        `${batch ? `${thousands(batch.medianMs)} ms${ratio}` : "—"} | ${cpuCell(batch)} |`,
    );
  }
  return `${lines.join("\n")}\n`;
}

async function main(): Promise<void> {
  // The batches written from this process take their visitors' addresses as the front door does (one
  // hop), and name the links' host: the statement writes a row only for its link's own host, so
  // batches timed with another short host wrote nothing.
  process.env.TRUSTED_PROXY_HOPS = "1";
  process.env.SHORT_BASE_URL = `http://${SHORT_HOST}`;
  resetConfig();
  requireProjectNode();
  requireWrk();
  const { embedded } = await boot();
  await ensureFreshBuild({ showOutput: true });
  const seeded: SpreadLinks[] = [];
  const legacy: SpreadLinks[] = [];
  for (const count of LINK_COUNTS) {
    const started = Date.now();
    seeded.push(await seedSpreadLinks(count + PROBE_LINKS));
    legacy.push(await seedSpreadLinks(count + PROBE_LINKS));
    console.log(
      `Seeded 2 × ${thousands(count + PROBE_LINKS)} links with COPY in ${((Date.now() - started) / 1000).toFixed(0)} s.`,
    );
  }
  const env = {
    // As boot() settled them (the embedded database's address, a development AUTH_SECRET).
    DATABASE_URL: config().DATABASE_URL,
    DATABASE_POOL_SIZE: String(config().DATABASE_POOL_SIZE),
    AUTH_SECRET: config().AUTH_SECRET,
    SHORT_BASE_URL: `http://${SHORT_HOST}`,
    BASE_URL: "http://app.bench.example",
    RECHECK_INTERVAL_SECONDS: "0",
  };
  try {
    const rows: SpreadRow[] = [];
    for (let run = 0; run < RUNS; run++) {
      console.log(`Spread run ${run + 1} of ${RUNS}`);
      for (const links of seeded) rows.push(await spreadScenario(links, links.count - PROBE_LINKS, env));
    }
    const batches = await timeBatches(seeded, legacy);
    console.log(`  batches of ${BATCH_SIZE}: ${JSON.stringify(batches)}`);
    const date = new Date().toISOString();
    const header =
      `Measured ${date}: wrk -t1 -c${CONNECTIONS} for ${SECONDS} s a links count, each request a link ` +
      `at random from a browser at random (${VISITOR_AGENTS.length}) and a random address; ` +
      `${pinningNote()}; PostgreSQL${embedded ? " (embedded)" : ""}; ${RUNS} ` +
      `run${RUNS === 1 ? "" : "s"}. Cold misses: a probe visiting links nobody had visited, every ` +
      `${PROBE_INTERVAL_MS} ms during the load. Batch: ${BATCH_SIZE} spread scans written by the ` +
      `writer's statement, median of ${BATCH_SAMPLES}, the links counts in turns (× the smallest's), ` +
      "with realistic visitors (one proxy hop trusted: each scan its own address and country); PostgreSQL's CPU a " +
      "scan read from its backends' /proc counters, beside the release before's statement on links of its own, in turns.";
    const table = markdownTable(rows, batches);
    const settings = { seconds: SECONDS, connections: CONNECTIONS, runs: RUNS, cpus: pinningNote() };
    await mkdir("bench/results", { recursive: true });
    await writeFile(
      `bench/results/spread-${date.replace(/[:.]/g, "-")}.json`,
      `${JSON.stringify({ date, settings, rows, batches }, null, 2)}\n`,
    );
    await writeFile("bench/results/spread-latest.md", `${header}\n\n${table}`);
    if (!options["no-readme"])
      await writeReadmeBlock(
        "bench-spread",
        `${header}

${table}`,
      );
    console.log(`\n${header}\n\n${table}`);
  } finally {
    await closePool();
    await embedded?.close();
  }
}

runBenchScript(main);
