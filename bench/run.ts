import { fork } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import autocannon from "autocannon";
import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { newId, randomString } from "@/lib/db/random";
import { SLUG_ALPHABET } from "@/lib/links/slugs";
import { boot } from "@/scripts/boot";
import { ensureFreshBuild, freePort, startApp, type RunningApp } from "@/scripts/app-process";
import { startTestDnsServer } from "@/tests/support/dns-server";

/**
 * `npm run bench`: the short-link path of the self-hosted front door against a bare node:http
 * 302 server, measured in the same run on the same machine, so the ratios mean something.
 */
const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 50;
const SHORT_HOST = "s.bench.example";
const COLD_LINKS = 20_000;

type Row = { scenario: string; requestsPerSecond: number; p50: number; p99: number; unexpected: number; paced: boolean };
type StatusClass = "2xx" | "3xx" | "4xx";

async function seed(): Promise<{ active: string; quarantined: string; cold: string[] }> {
  const workspaceId = newId("ws");
  await db().workspace.create({ data: { id: workspaceId, name: "Benchmark", kind: "team" } });
  const link = (status: number, slug: string, destination: string) => ({
    id: newId("lnk"), workspaceId, slug, reusable: false, status, destination,
  });
  const active = `a${randomString(SLUG_ALPHABET, 8)}`;
  const quarantined = `q${randomString(SLUG_ALPHABET, 8)}`;
  const cold = Array.from({ length: COLD_LINKS }, (_, i) => `c${i}${randomString(SLUG_ALPHABET, 6)}`);
  await db().link.createMany({
    data: [link(0, active, "https://example.com/active"), link(1, quarantined, "https://example.com/quarantined")],
  });
  for (let i = 0; i < cold.length; i += 5000) {
    await db().link.createMany({ data: cold.slice(i, i + 5000).map((slug) => link(0, slug, `https://example.com/${slug}`)) });
  }
  return { active, quarantined, cold };
}

/** Drives `paths` round-robin; `unexpected` counts errors, time-outs and answers outside `expected`. */
async function load(scenario: string, url: string, paths: string[], expected: StatusClass, options: { rate?: number } = {}): Promise<Row> {
  let next = 0;
  const result = await autocannon({
    url,
    connections: options.rate ? 10 : CONNECTIONS,
    duration: DURATION_SECONDS,
    overallRate: options.rate,
    headers: { host: SHORT_HOST },
    requests: [{ setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] }) }],
  });
  return {
    scenario,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    unexpected: result.errors + result.timeouts + answered(result) - result[expected],
    paced: options.rate !== undefined,
  };
}

function answered(result: autocannon.Result): number {
  return result["1xx"] + result["2xx"] + result["3xx"] + result["4xx"] + result["5xx"];
}

async function startReference(): Promise<{ url: string; stop(): void }> {
  const port = await freePort();
  const child = fork(path.resolve("bench/reference-server.ts"), [String(port)], { execArgv: ["--import", "tsx"] });
  await new Promise((resolve) => child.once("message", resolve));
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

function table(rows: Row[], reference: Row): string {
  const lines = ["| scenario | requests/s | vs reference | p50 ms | p99 ms | unexpected answers |", "|---|---:|---:|---:|---:|---:|"];
  for (const row of rows) {
    const ratio = row.paced ? "paced" : (row.requestsPerSecond / reference.requestsPerSecond).toFixed(2);
    lines.push(`| ${row.scenario} | ${row.requestsPerSecond} | ${ratio} | ${row.p50} | ${row.p99} | ${row.unexpected} |`);
  }
  return lines.join("\n");
}

async function main(): Promise<void> {
  const { embedded } = await boot();
  const dns = await startTestDnsServer();
  const links = await seed();
  ensureFreshBuild();
  const common = { DATABASE_URL: process.env.DATABASE_URL, DATABASE_POOL_SIZE: process.env.DATABASE_POOL_SIZE, AUTH_SECRET: process.env.AUTH_SECRET, SHORT_BASE_URL: `http://${SHORT_HOST}`, BASE_URL: "http://app.bench.example", DNS_RESOLVER: dns.resolver, RECHECK_INTERVAL_SECONDS: "0" };
  const reference = await startReference();
  const rows: Row[] = [];
  let app: RunningApp | undefined;
  try {
    const referenceRow = await load("reference: bare node:http 302", reference.url, ["/ref"], "3xx");
    reference.stop();
    app = await startApp("front", common);
    await load("warm-up", app.url, [`/${links.active}`, `/${links.quarantined}`], "3xx");
    rows.push(await load("active link, warm", app.url, [`/${links.active}`], "3xx"));
    rows.push(await load("quarantined link, warm (live check)", app.url, [`/${links.quarantined}`], "3xx"));
    rows.push(await load("unknown slug (404)", app.url, ["/Unknown9"], "4xx"));
    rows.push(await load("active link at 1,000 requests/s", app.url, [`/${links.active}`], "3xx", { rate: 1000 }));
    await app.stop();
    app = await startApp("front", { ...common, RESOLUTION_CACHE_SECONDS: "0" });
    rows.push(await load("cold miss from PostgreSQL (cache off)", app.url, links.cold.map((slug) => `/${slug}`), "3xx"));
    const report = { date: new Date().toISOString(), durationSeconds: DURATION_SECONDS, connections: CONNECTIONS, database: embedded ? "embedded" : "PostgreSQL", reference: referenceRow, rows };
    const markdown = `${table([referenceRow, ...rows], referenceRow)}\n`;
    await mkdir("bench/results", { recursive: true });
    await writeFile(`bench/results/${report.date.replace(/[:.]/g, "-")}.json`, `${JSON.stringify(report, null, 2)}\n`);
    await writeFile("bench/results/latest.md", `Measured ${report.date} on ${report.database}, ${DURATION_SECONDS} s per scenario.\n\n${markdown}`);
    console.log(markdown);
  } finally {
    reference.stop();
    await app?.stop();
    await dns.close();
    await embedded?.close();
  }
}

resetConfig();
main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
