import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { writeScanBatch } from "@/lib/analytics/store/append";
import { config, resetConfig } from "@/lib/config";
import { closePool, pool, writerPool } from "@/lib/db/pool";
import { boot } from "@/server/boot";
import { randomScanRows, seedSpreadLinks } from "./spread-links";
import { runBenchScript } from "./script";

/**
 * `npx tsx bench/batch-plan.ts --links 1000000 [--batch 5000] [--batches 5] [--explain]`: seeds
 * `links` links (COPY), then writes batches of scans spread over them at random with the writer's
 * own statement and prints each batch's time; with --explain, the plan of the last batch and of
 * every statement it set off (auto_explain, ANALYZE and BUFFERS, sent back as notices).
 * DATABASE_URL names the database (a superuser's connection for --explain).
 */
const { values: options } = parseArgs({
  options: {
    links: { type: "string", default: "20000" },
    batch: { type: "string", default: "5000" },
    batches: { type: "string", default: "5" },
    explain: { type: "boolean", default: false },
  },
});

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

runBenchScript(main);
