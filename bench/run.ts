import { droppedSinceStartIn } from "@/lib/analytics/scan-buffer";
import { config, settleConfig } from "@/lib/config";
import { closePool } from "@/lib/db/pool";
import { ensureFreshBuild } from "@/server/app-process";
import { boot } from "@/server/boot";
import { TEST_ZONE } from "@/tests/support/dns-server";
import { startFakeDnsServer } from "@/tests/support/fake-dns-server";
import { startUpstashStandIn } from "@/tests/support/upstash-stand-in";
import { mkdir, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { pinningNote } from "./cpus";
import { startEmbeddedTurns } from "./embedded-turns";
import { concurrentVisits, exactVisits } from "./exact-visits";
import { hostileUploads, subscribedSessionToken, type HostileUploads, type UploadTally } from "./hostile-logos";
import { exactAcrossInstances } from "./instances";
import { markdownTable, summarise, type Row, type RunResult, type ScenarioKey } from "./report";
import { runBenchScript, writeReadmeBlock } from "./script";
import { benchServerEnv, closeBenchPool, COLD_LINKS, scansIn, seedBenchLinks, waitForScans, type BenchLinks } from "./seed";
import { cpuMicros, NEXT_FLOOR_DIR, requireProjectNode, residentBytes, startServer, type BenchServer } from "./servers";
import { seedSpreadLinks } from "./spread-links";
import { requireWrk, socketErrors, wrk, type WrkResult } from "./wrk";

/**
 * `npm run bench [-- --runs 3]`: the redirect paths driven by wrk. Each run keeps a bare node:http
 * 302 server in its own process and measures it before the app, for as long just before every
 * scenario (the scenario's ratio is against that slice) and after the app. See bench/README.md.
 */
const { values: options } = parseArgs({
  options: {
    runs: { type: "string", default: "1" },
    seconds: { type: "string", default: process.env.BENCH_SECONDS ?? "8" },
    "sustain-seconds": { type: "string", default: "60" },
    "exact-visits": { type: "string", default: "5000" },
    connections: { type: "string", default: "50" },
    slices: { type: "string", default: "4" },
    only: { type: "string" },
    profile: { type: "string" },
    links: { type: "string", default: String(COLD_LINKS) },
    "no-readme": { type: "boolean", default: false },
  },
});

const RUNS = Number(options.runs);
const SECONDS = Number(options.seconds);
const SUSTAIN_SECONDS = Number(options["sustain-seconds"]);
const EXACT_VISITS = Number(options["exact-visits"]);
const CONNECTIONS = Number(options.connections);
const SLICES = Number(options.slices);
const ONLY = options.only?.split(",");
/** Links in the table for a second cold-miss row (beside the 20,000 of the first), seeded once with COPY. */
const LINKS_IN_TABLE = Number(options.links);
const SHORT_HOST = "s.bench.example";
const SILENT_HOST = "silent.bench.example";
const WARM_UP_SECONDS = 5;
/**
 * Quiet before every reference slice, alike for every scenario: the app's scan writer has written
 * nothing for this long (longer than a batch of the cold miss takes without load), or, for a
 * scenario without scans, the app has had this long to finish what its load left (collections).
 */
const SETTLE_MS = 3000;
/** Uploaders sending hostile logos at once, as an adversarial review's six copies of one SVG did. */
const HOSTILE_UPLOADERS = 6;

const wanted = (key: string) => !ONLY || ONLY.includes(key);

type Env = Record<string, string | undefined>;

async function load(server: BenchServer, paths: string[], seconds = SECONDS) {
  return wrk({ url: server.url, paths, host: SHORT_HOST, seconds, connections: CONNECTIONS, threads: 1 });
}

/** The run's bare node:http reference, in its own process for the whole run (idle between its slices). */
let referenceServer: BenchServer | null = null;

const requestsPerSecond = (result: WrkResult) => Math.round(result.requests / (result.durationUs / 1e6));

/**
 * One scenario under wrk, in `slices` slices that alternate with slices of the reference: this
 * machine's speed moves by a quarter within seconds, so the ratio is the scenario's requests over
 * the reference's, taken in turns over the same minute (one reference before and one after the
 * whole app were often the wrong yardstick). Its links belong to one workspace, so the scans it
 * caused are counted exactly; wrk stops with up to one request per connection in flight, which the
 * server may have answered (and recorded) without wrk counting it, so scans may exceed the
 * redirects wrk saw by at most the number of connections a slice, never fall short. Work `alongside`
 * the load runs during the scenario's slices only, never the reference's.
 */
async function measure(
  key: ScenarioKey,
  scenario: string,
  server: BenchServer,
  paths: string[],
  expect: "3xx" | "4xx",
  workspaceId: string | null,
  seconds = SECONDS,
  slices = SLICES,
  alongside?: HostileUploads,
): Promise<Row> {
  const sliceSeconds = Math.max(1, Math.round(seconds / slices));
  const before = workspaceId ? await scansIn(workspaceId) : 0;
  // The app's buffer logs its running total of drops: what a scan count short of the redirects lost.
  const droppedBefore = droppedSinceStartIn(server.output());
  const cpuBefore = await cpuMicros(server.pid);
  const references: WrkResult[] = [];
  const results: WrkResult[] = [];
  for (let slice = 0; slice < slices; slice++) {
    // The app finishes what the last load left first, so it does not slow the reference's slice.
    await (workspaceId ? waitForScans(workspaceId, SETTLE_MS) : sleep(SETTLE_MS));
    references.push(await load(referenceServer!, ["/ref"], Math.min(sliceSeconds, SECONDS)));
    alongside?.start();
    results.push(await load(server, paths, sliceSeconds));
    await alongside?.pause();
  }
  const result = combined(results);
  const answeredAsExpected = expect === "3xx" ? result.requests - result.statusErrors : result.statusErrors;
  // After the flush, so the CPU the scan writes cost is charged to the visits that caused them.
  const scans = workspaceId ? (await waitForScans(workspaceId)) - before : null;
  const cpuAfter = await cpuMicros(server.pid);
  const row: Row = {
    key,
    scenario,
    requestsPerSecond: requestsPerSecond(result),
    p50Ms: result.p50Us / 1000,
    p99Ms: result.p99Us / 1000,
    unexpected: result.requests - answeredAsExpected + socketErrors(result),
    redirects: expect === "3xx" ? answeredAsExpected : null,
    scans,
    droppedScans: workspaceId ? droppedSinceStartIn(server.output()) - droppedBefore : null,
    cpuMicrosPerRequest: perRequest(cpuBefore, cpuAfter, result.requests),
    pairedReference: requestsPerSecond(combined(references)),
  };
  const dropped = row.droppedScans ? `, ${row.droppedScans} dropped at the buffer's bound` : "";
  console.log(
    `  ${scenario}: ${row.requestsPerSecond}/s (reference in turns: ${row.pairedReference}/s), ` +
      `${row.cpuMicrosPerRequest?.toFixed(1)} µs CPU/request, p50 ${row.p50Ms} ms, p99 ${row.p99Ms} ms, ` +
      `unexpected ${row.unexpected}${scans === null ? "" : `, scans ${scans} for ${row.redirects} redirects${dropped}`}`,
  );
  return row;
}

/**
 * Slices of one load as one: counts summed, latencies from the upper median slice (each slice opens
 * its connections anew, and the one that met a burst of connection set-up or a collection should
 * not speak for the rest; a slow tail that persists shows in most slices, so in the median).
 */
function combined(results: WrkResult[]): WrkResult {
  const sum = (pick: (result: WrkResult) => number) => results.reduce((total, result) => total + pick(result), 0);
  const upperMedian = (pick: (result: WrkResult) => number) =>
    results.map(pick).sort((a, b) => a - b)[Math.floor(results.length / 2)]!;
  return {
    requests: sum((result) => result.requests),
    durationUs: sum((result) => result.durationUs),
    connectErrors: sum((result) => result.connectErrors),
    readErrors: sum((result) => result.readErrors),
    writeErrors: sum((result) => result.writeErrors),
    statusErrors: sum((result) => result.statusErrors),
    timeouts: sum((result) => result.timeouts),
    p50Us: upperMedian((result) => result.p50Us),
    p99Us: upperMedian((result) => result.p99Us),
    maxUs: Math.max(...results.map((result) => result.maxUs)),
  };
}

function perRequest(before: number | null, after: number | null, requests: number): number | null {
  return before === null || after === null || requests === 0 ? null : (after - before) / requests;
}

async function reference(label: string): Promise<Row> {
  const server = referenceServer!;
  const cpuBefore = await cpuMicros(server.pid);
  const result = await load(server, ["/ref"]);
  const cpuAfter = await cpuMicros(server.pid);
  const row: Row = {
    key: "reference",
    scenario: label,
    requestsPerSecond: requestsPerSecond(result),
    p50Ms: result.p50Us / 1000,
    p99Ms: result.p99Us / 1000,
    unexpected: result.statusErrors + socketErrors(result),
    redirects: null,
    scans: null,
    droppedScans: null,
    cpuMicrosPerRequest: perRequest(cpuBefore, cpuAfter, result.requests),
    pairedReference: null,
  };
  console.log(
    `  ${label}: ${row.requestsPerSecond}/s, ${row.cpuMicrosPerRequest?.toFixed(1)} µs CPU/request, p99 ${row.p99Ms} ms`,
  );
  return row;
}

/**
 * Bare node:http sending the front door's own 302 and 404 page, as the floor under those scenarios:
 * the part of the gap to the reference that is the answers' bytes, not the door's work.
 */
async function floorScenarios(): Promise<Row[]> {
  const server = await startServer("floor", {});
  try {
    const rows: Row[] = [];
    if (wanted("active") || wanted("quarantined"))
      rows.push(
        await measure(
          "floor-redirect",
          "floor: bare node:http sending the front door's 302 (its headers and body)",
          server,
          ["/redirect"],
          "3xx",
          null,
        ),
      );
    if (wanted("unknown"))
      rows.push(
        await measure(
          "floor-unknown",
          "floor: bare node:http sending the front door's 404 page",
          server,
          ["/Unknown9"],
          "4xx",
          null,
        ),
      );
    return rows;
  } finally {
    await server.stop();
  }
}

async function frontScenarios(
  links: BenchLinks,
  env: Env,
  profileFlags: string[],
): Promise<Pick<RunResult, "rows" | "memory" | "exact" | "silentFirstVisits">> {
  const rows: Row[] = [];
  const front = await startServer("front", env, profileFlags);
  let memory: RunResult["memory"] = null;
  let exact: RunResult["exact"] = null;
  let silentFirstVisits: RunResult["silentFirstVisits"] = null;
  try {
    await load(
      front,
      [`/${links.active.slug}`, `/${links.rules.slug}`, `/${links.quarantined.slug}`, `/${links.sustained.slug}`],
      WARM_UP_SECONDS,
    );
    if (wanted("silent")) {
      // A new link's first visitors wait for its first check, up to SAFETY_CHECK_DEADLINE_MS: measured
      // apart on the warm server, as they arrive (one a connection, at once); the scenario measures the visits after them.
      const times = await concurrentVisits(front.url, SHORT_HOST, `/${links.silent.slug}`, CONNECTIONS);
      silentFirstVisits = { visits: times.length, medianMs: times[Math.floor(times.length / 2)]!, maxMs: times.at(-1)! };
      console.log(
        `  first ${times.length} visits of the silent link, at once: median ` +
          `${silentFirstVisits.medianMs.toFixed(0)} ms, slowest ${silentFirstVisits.maxMs.toFixed(0)} ms`,
      );
    }
    // Every link the warm-up visited, or its scans still being written would count as the scenario's.
    await Promise.all(
      [links.active, links.rules, links.quarantined, links.sustained, links.silent].map((link) => waitForScans(link.workspaceId)),
    );
    const warmBytes = await residentBytes(front.pid);
    if (wanted("quarantined"))
      rows.push(
        await measure(
          "quarantined",
          "quarantined link, warm (live check, DNS answering)",
          front,
          [`/${links.quarantined.slug}`],
          "3xx",
          links.quarantined.workspaceId,
        ),
      );
    if (wanted("active"))
      rows.push(await measure("active", "active link, warm", front, [`/${links.active.slug}`], "3xx", links.active.workspaceId));
    if (wanted("rules"))
      rows.push(
        await measure(
          "rules",
          "active link with 20 routing rules, none matching (all evaluated), warm",
          front,
          [`/${links.rules.slug}`],
          "3xx",
          links.rules.workspaceId,
        ),
      );
    if (wanted("unknown"))
      rows.push(await measure("unknown", "unknown slug (404, nothing written)", front, ["/Unknown9"], "4xx", null));
    if (wanted("silent"))
      rows.push(
        await measure(
          "silent",
          "quarantined link, destination's DNS never answers (after its first visits)",
          front,
          [`/${links.silent.slug}`],
          "3xx",
          links.silent.workspaceId,
        ),
      );
    if (wanted("exact")) {
      const before = await scansIn(links.exact.workspaceId);
      const answers = await exactVisits(front.url, SHORT_HOST, `/${links.exact.slug}`, EXACT_VISITS, CONNECTIONS);
      const scans = (await waitForScans(links.exact.workspaceId)) - before;
      exact = { visits: EXACT_VISITS, redirects: answers.redirects, other: answers.other, scans };
      console.log(`  exact count: ${EXACT_VISITS} visits, ${answers.redirects} redirects, ${scans} scans recorded`);
    }
    if (wanted("sustained")) {
      const row = await measure(
        "sustained",
        `quarantined link, ${SUSTAIN_SECONDS} s at full load`,
        front,
        [`/${links.sustained.slug}`],
        "3xx",
        links.sustained.workspaceId,
        SUSTAIN_SECONDS,
        1,
      );
      const loadedBytes = await residentBytes(front.pid);
      rows.push(row);
      if (warmBytes !== null && loadedBytes !== null)
        memory = { afterWarmUpBytes: warmBytes, afterLoadBytes: loadedBytes, ratio: loadedBytes / warmBytes };
      if (memory)
        console.log(
          `  resident memory: ${(warmBytes! / 2 ** 20).toFixed(0)} MiB after warm-up, ` +
            `${(loadedBytes! / 2 ** 20).toFixed(0)} MiB after the sustained run (×${memory.ratio.toFixed(2)})`,
        );
    }
  } finally {
    await front.stop();
  }
  return { rows, memory, exact, silentFirstVisits };
}

/**
 * The cold miss over the bench's 20,000 links; with --links N, again after N − 20,000 more links
 * were added to the table: a lookup's cost should not follow the table's size.
 */
async function coldScenarios(links: BenchLinks, env: Env): Promise<Row[]> {
  const rows = [
    await coldScenario("cold", `cold miss from PostgreSQL (cache off, ${links.cold.slugs.length} links)`, links, env),
  ];
  if (LINKS_IN_TABLE <= links.cold.slugs.length) return rows;
  const started = Date.now();
  await seedSpreadLinks(LINKS_IN_TABLE - links.cold.slugs.length);
  console.log(
    `Seeded ${LINKS_IN_TABLE - links.cold.slugs.length} more links with COPY in ${((Date.now() - started) / 1000).toFixed(0)} s.`,
  );
  const scenario = `cold miss from PostgreSQL (cache off, the same ${links.cold.slugs.length} links among ${LINKS_IN_TABLE})`;
  rows.push(await coldScenario("cold-big", scenario, links, env));
  return rows;
}

async function coldScenario(key: ScenarioKey, scenario: string, links: BenchLinks, env: Env): Promise<Row> {
  const front = await startServer("front", { ...env, RESOLUTION_CACHE_SECONDS: "0" });
  try {
    await load(
      front,
      links.cold.slugs.slice(0, 2000).map((slug) => `/${slug}`),
      3,
    );
    await waitForScans(links.cold.workspaceId);
    return await measure(
      key,
      scenario,
      front,
      links.cold.slugs.map((slug) => `/${slug}`),
      "3xx",
      links.cold.workspaceId,
    );
  } finally {
    await front.stop();
  }
}

/**
 * The active link's redirect on a server of its own, without and then with six clients uploading
 * the hostile logos an adversarial review sent (filter chains, an embedded 11000×11000 PNG, 10,001 elements, a PNG
 * bomb) during its slices, so the second row says what being refused costs redirects. The write
 * limit is lifted, so every upload reaches the logo's decoding rather than a cheap 429.
 */
async function hostileLogoScenarios(
  links: BenchLinks,
  env: Env,
  profileFlags: string[],
): Promise<{ rows: Row[]; uploads: UploadTally }> {
  const front = await startServer(
    "front",
    { ...env, BILLING_PROVIDER: "local", WRITE_RATE_LIMIT_PER_MINUTE: "1000000" },
    profileFlags,
  );
  try {
    const paths = [`/${links.logos.slug}`];
    await load(front, paths, WARM_UP_SECONDS);
    await waitForScans(links.logos.workspaceId);
    const uploads = hostileUploads(front.url, await subscribedSessionToken(front.url), HOSTILE_UPLOADERS);
    const quiet = await measure(
      "logos-quiet",
      "active link, warm, on a server of its own",
      front,
      paths,
      "3xx",
      links.logos.workspaceId,
    );
    const hostile = await measure(
      "logos-hostile",
      `the same, while ${HOSTILE_UPLOADERS} clients upload hostile logos, each refused`,
      front,
      paths,
      "3xx",
      links.logos.workspaceId,
      SECONDS,
      SLICES,
      uploads,
    );
    const tally = uploads.tally();
    console.log(`  hostile uploads during its slices: ${tally.uploads}, by status ${JSON.stringify(tally.byStatus)}`);
    return { rows: [quiet, hostile], uploads: tally };
  } finally {
    await front.stop();
  }
}

/**
 * The Vercel door under `next start`: Next's floor (a proxy.ts with a fixed answer, none of our
 * code), the real proxy.ts, and the real one configured as the README's Vercel deployment (Upstash
 * REST only, so it reads the link-change feed every HEAR_INTERVAL_MS before trusting its memory).
 */
async function vercelDoorScenarios(links: BenchLinks, env: Env, profileFlags: string[]): Promise<Row[]> {
  const rows: Row[] = [];
  const floor = await startServer("proxy-floor", {}, profileFlags);
  try {
    await load(floor, [`/${links.proxy.slug}`], WARM_UP_SECONDS);
    rows.push(
      await measure(
        "proxy-floor",
        "Vercel door's floor: a proxy.ts answering a fixed 302 under next start",
        floor,
        [`/${links.proxy.slug}`],
        "3xx",
        null,
      ),
    );
  } finally {
    await floor.stop();
  }
  rows.push(await proxyScenario("proxy", "Vercel door: proxy.ts under next start, active link, warm", links, env, profileFlags));
  const upstash = await startUpstashStandIn();
  try {
    const upstashEnv = { ...env, UPSTASH_REDIS_REST_URL: upstash.url, UPSTASH_REDIS_REST_TOKEN: upstash.token };
    rows.push(
      await proxyScenario(
        "proxy-upstash",
        "Vercel door with Upstash REST only (link-change feed read every 2 s)",
        links,
        upstashEnv,
        profileFlags,
      ),
    );
  } finally {
    await upstash.close();
  }
  return rows;
}

async function proxyScenario(
  key: ScenarioKey,
  scenario: string,
  links: BenchLinks,
  env: Env,
  profileFlags: string[],
): Promise<Row> {
  const proxy = await startServer("proxy", env, profileFlags);
  try {
    await load(proxy, [`/${links.proxy.slug}`], WARM_UP_SECONDS);
    await waitForScans(links.proxy.workspaceId);
    return await measure(key, scenario, proxy, [`/${links.proxy.slug}`], "3xx", links.proxy.workspaceId);
  } finally {
    await proxy.stop();
  }
}

async function oneRun(index: number, links: BenchLinks, env: Env): Promise<RunResult> {
  console.log(`Run ${index + 1} of ${RUNS}`);
  const profileFlags = options.profile ? ["--cpu-prof", `--cpu-prof-dir=${options.profile}`] : [];
  referenceServer = await startServer("reference", {});
  try {
    const referenceBefore = await reference("reference before: bare node:http 302");
    const floors = await floorScenarios();
    const front = await frontScenarios(links, env, profileFlags);
    const rows = [...floors, ...front.rows];
    const instances = wanted("instances")
      ? await exactAcrossInstances([2, 3], env, links.exact, EXACT_VISITS, CONNECTIONS, SHORT_HOST)
      : null;
    if (wanted("cold")) rows.push(...(await coldScenarios(links, env)));
    const logos = wanted("logos") ? await hostileLogoScenarios(links, env, profileFlags) : null;
    if (logos) rows.push(...logos.rows);
    if (wanted("proxy")) rows.push(...(await vercelDoorScenarios(links, env, profileFlags)));
    const referenceAfter = await reference("reference after: bare node:http 302");
    return {
      referenceBefore,
      referenceAfter,
      rows,
      memory: front.memory,
      exact: front.exact,
      silentFirstVisits: front.silentFirstVisits,
      instances,
      hostileUploads: logos?.uploads ?? null,
    };
  } finally {
    await referenceServer.stop();
    referenceServer = null;
  }
}

async function main(): Promise<void> {
  if (LINKS_IN_TABLE > COLD_LINKS && RUNS > 1)
    throw new Error("--links seeds the extra links once, so it measures one run: leave out --runs.");
  requireProjectNode();
  requireWrk();
  const { embedded } = await boot();
  // The embedded database serves one exchange at a time: the bench's queries and the app's take turns.
  const turns = embedded ? await startEmbeddedTurns(config().DATABASE_URL!) : null;
  if (turns) settleConfig({ DATABASE_URL: turns.url });
  const dns = await startFakeDnsServer({ [SILENT_HOST]: "silent" }, { a: [TEST_ZONE.publicAddress] });
  const links = await seedBenchLinks(SILENT_HOST);
  await ensureFreshBuild({ showOutput: true });
  if (wanted("proxy")) await ensureFreshBuild({ showOutput: true, dir: NEXT_FLOOR_DIR });
  const env: Env = benchServerEnv(SHORT_HOST, dns.resolver);
  try {
    const runs: RunResult[] = [];
    for (let index = 0; index < RUNS; index++) runs.push(await oneRun(index, links, env));
    const summary = summarise(runs, CONNECTIONS, SLICES);
    const date = new Date().toISOString();
    const settings = {
      seconds: SECONDS,
      slices: SLICES,
      sustainSeconds: SUSTAIN_SECONDS,
      connections: CONNECTIONS,
      wrkThreads: 1,
      database: embedded ? "embedded" : "PostgreSQL",
      cpus: pinningNote(),
    };
    const header =
      `Measured ${date} with wrk (-t1 -c${CONNECTIONS}, ${SECONDS} s a scenario in ${SLICES} slices ` +
      `taken in turns with the reference; ${settings.cpus}), ${RUNS} run${RUNS === 1 ? "" : "s"} on ` +
      `${settings.database}; medians, with the spread over runs in brackets.`;
    const table = markdownTable(summary);
    // A partial run (--only) is for working on one scenario: it is printed, not kept.
    if (!ONLY) {
      await mkdir("bench/results", { recursive: true });
      await writeFile(
        `bench/results/${date.replace(/[:.]/g, "-")}.json`,
        `${JSON.stringify({ date, settings, summary, runs }, null, 2)}\n`,
      );
      await writeFile("bench/results/latest.md", `${header}\n\n${table}\n`);
      if (!options["no-readme"])
        await writeReadmeBlock(
          "bench",
          `${header}

${table}`,
        );
    }
    // The hostile-logo rows alone have a block of their own, kept like the whole table's.
    if (ONLY?.length === 1 && ONLY[0] === "logos") {
      await mkdir("bench/results", { recursive: true });
      await writeFile(
        `bench/results/logos-${date.replace(/[:.]/g, "-")}.json`,
        `${JSON.stringify({ date, settings, summary, runs }, null, 2)}\n`,
      );
      if (!options["no-readme"]) await writeReadmeBlock("bench-logos", `${header}\n\n${table}`);
    }
    console.log(`\n${header}\n\n${table}`);
  } finally {
    await closeBenchPool();
    await closePool();
    await dns.close();
    await turns?.close();
    await embedded?.close();
  }
}

runBenchScript(main);
