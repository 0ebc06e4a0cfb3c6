import { writeScanBatch } from "@/lib/analytics/store/append";
import { config, resetConfig } from "@/lib/config";
import { closePool, pool, writerPool } from "@/lib/db/pool";
import { boot } from "@/server/boot";
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { backendCpuReadable, costOf, measureBatch, type CostSample } from "./scan-cost";
import { runBenchScript } from "./script";
import { randomScanRows, seedSpreadLinks, type SpreadLinks } from "./spread-links";

/**
 * `npx tsx bench/batch-plan.ts --links 1000000 [--batch 5000] [--batches 5] [--explain] [--compare]`:
 * seeds `links` links (COPY), then writes batches of scans spread over them at random with the
 * writer's own statement and prints each batch's time; with --explain, the plan of the last batch
 * and of every statement it set off (auto_explain, ANALYZE and BUFFERS, sent back as notices). With
 * --compare, the statement of the release before writes the same kind of batches in turns, over
 * links of their own (as many), and each design's PostgreSQL CPU a scan is read from its backends'
 * counters (bench/scan-cost.ts). Visitors are realistic: one proxy hop is trusted, so each scan has
 * the address it was sent from (a visitor and a country of its own); `--visitors agents` trusts
 * none, as this script did before, so every scan's visitor is one of the 8 user agents.
 * DATABASE_URL names the database (a superuser's connection for --explain).
 */
const { values: options } = parseArgs({
  options: {
    links: { type: "string", default: "20000" },
    batch: { type: "string", default: "5000" },
    batches: { type: "string", default: "5" },
    explain: { type: "boolean", default: false },
    compare: { type: "boolean", default: false },
    visitors: { type: "string", default: "addresses" },
  },
});
if (options.visitors === "addresses") process.env.TRUSTED_PROXY_HOPS = "1";

const AUTO_EXPLAIN = [
  "session_preload_libraries=auto_explain",
  "auto_explain.log_min_duration=0",
  "auto_explain.log_analyze=on",
  "auto_explain.log_buffers=on",
  "auto_explain.log_nested_statements=on",
  "auto_explain.log_level=notice",
];

async function main(): Promise<void> {
  await boot();
  const started = Date.now();
  const links = await seedSpreadLinks(Number(options.links));
  console.log(`seeded ${links.count} links in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const batches = Number(options.batches);
  if (options.compare) return compare(links, await seedSpreadLinks(Number(options.links)), batches);
  const times: number[] = [];
  for (let index = 0; index < batches; index++) {
    const last = index === batches - 1;
    if (last && options.explain) {
      await closePool();
      const url = new URL(process.env.DATABASE_URL!);
      url.searchParams.set("options", AUTO_EXPLAIN.map((setting) => `-c ${setting}`).join(" "));
      process.env.DATABASE_URL = url.toString();
      resetConfig();
      for (const each of new Set([pool(), writerPool()]))
        each.on("connect", (client) => client.on("notice", (notice) => console.log(notice.message)));
    }
    // The short host: the batch statement writes a row only for its link's own host.
    const rows = await randomScanRows(links, Number(options.batch), new URL(config().SHORT_BASE_URL).hostname);
    const began = performance.now();
    await writeScanBatch(randomUUID(), rows);
    times.push(performance.now() - began);
    console.log(`batch ${index + 1}: ${rows.length} scans in ${times.at(-1)!.toFixed(0)} ms`);
  }
  await closePool();
}

/** Both designs, a batch each in turns over links of their own: each one's PostgreSQL CPU a scan, and the ratio. */
async function compare(current: SpreadLinks, legacy: SpreadLinks, batches: number): Promise<void> {
  if (!(await backendCpuReadable())) throw new Error("PostgreSQL's backends are not on this machine: their CPU cannot be read.");
  const host = new URL(config().SHORT_BASE_URL).hostname;
  const samples: CostSample[] = [];
  for (let index = 0; index < batches; index++) {
    for (const [design, links] of [
      ["legacy", legacy],
      ["current", current],
    ] as const) {
      const sample = await measureBatch(design, await randomScanRows(links, Number(options.batch), host));
      samples.push(sample);
      console.log(
        `batch ${index + 1} ${design}: ${sample.wallMs.toFixed(0)} ms, ${(sample.cpuUs / sample.scans).toFixed(1)} µs of PostgreSQL CPU a scan`,
      );
    }
  }
  const [before, after] = [costOf(samples, "legacy"), costOf(samples, "current")];
  const line = (cost: typeof before) =>
    `${cost.usPerScan.toFixed(1)} µs a scan (median batch ${cost.medianUsPerScan.toFixed(1)}), ` +
    `${cost.walBytesPerScan.toFixed(0)} WAL bytes a scan, median batch ${cost.medianMs.toFixed(0)} ms`;
  console.log(`release before: ${line(before)}`);
  console.log(`this one:       ${line(after)}`);
  console.log(
    `ratios: CPU ×${(after.usPerScan / before.usPerScan).toFixed(2)} (medians ×${(after.medianUsPerScan / before.medianUsPerScan).toFixed(2)}), ` +
      `WAL ×${(after.walBytesPerScan / before.walBytesPerScan).toFixed(2)}`,
  );
  await closePool();
}

runBenchScript(main);
