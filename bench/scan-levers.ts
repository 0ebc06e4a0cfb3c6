import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { ScanRow } from "@/lib/analytics/enrich";
import { batchStatementValues, inWriterTransaction, WRITE_SCAN_BATCH } from "@/lib/analytics/store/append";
import { config } from "@/lib/config";
import { closePool } from "@/lib/db/pool";
import { boot } from "@/server/boot";
import { backendCpuNs, backendCpuReadable, writeLegacyScanBatch } from "./scan-cost";
import { randomScanRows, seedSpreadLinks, type SpreadLinks } from "./spread-links";
import { runBenchScript } from "./script";

/**
 * Scratch: the levers of issue 43 measured side by side, each design a batch in turns over links of
 * its own, PostgreSQL CPU a scan from its backends' counters.
 * - legacy: the release before's statement; current: today's;
 * - copy: today's statement without its raw INSERT, answering each row's flags, then the raw rows by COPY;
 * - nobd: today's statement without the links' breakdown rows, and a fold every --fold batches
 *   writing them set-based from the raw rows (its CPU counted with the design's);
 * - copy+nobd: both.
 */
const { values: options } = parseArgs({
  options: {
    links: { type: "string", default: "20000" },
    batch: { type: "string", default: "5000" },
    batches: { type: "string", default: "8" },
    fold: { type: "string", default: "4" },
    designs: { type: "string", default: "legacy,current,copy,nobd,copy+nobd" },
  },
});
process.env.TRUSTED_PROXY_HOPS = "1";

const BREAKDOWNS = /breakdowns AS \(\n\s+INSERT INTO scan_link_breakdowns[\s\S]*?RETURNING 1\n\s+\),/;
const RAW = /raw AS \(\n\s+INSERT INTO scan_events[\s\S]*?RETURNING 1\n\s+\),/;
const ANSWER = /SELECT ord FROM input WHERE ([\s\S]*?) ORDER BY ord\s*$/;

function variant(copy: boolean, breakdowns: boolean): string {
  let text = WRITE_SCAN_BATCH;
  if (!breakdowns) text = replaceOnce(text, BREAKDOWNS, "breakdowns AS (SELECT 1),");
  if (copy) {
    text = replaceOnce(text, RAW, "raw AS (SELECT 1),");
    text = replaceOnce(
      text,
      ANSWER,
      "SELECT ord, link_unique, workspace_unique, occurred_at < (SELECT daily_from FROM rollup_days) AS daily FROM flagged WHERE $1 ORDER BY ord",
    );
  }
  return text;
}

function replaceOnce(text: string, pattern: RegExp, by: string): string {
  if (!pattern.test(text)) throw new Error(`the batch statement no longer matches ${pattern}`);
  return text.replace(pattern, by);
}

/** COPY's text format: backslash, tab, newline and carriage return escaped; \N for NULL. */
function copyField(value: string | number | boolean | Date | null | undefined): string {
  if (value === null || value === undefined) return "\\N";
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "boolean") return value ? "t" : "f";
  if (typeof value === "number") return String(value);
  return value.replace(/[\\\t\n\r]/g, (c) => ({ "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" })[c]!);
}

async function writeVariant(client: pg.PoolClient, name: string, text: string, rows: ScanRow[]): Promise<void> {
  const counts = rows.map(() => 1);
  const result = await client.query<{ ord: string; link_unique: boolean; workspace_unique: boolean; daily: boolean }>({
    name,
    text,
    values: await batchStatementValues(randomUUID(), rows, counts),
  });
  if (!("link_unique" in (result.rows[0] ?? {}))) return;
  let body = "";
  for (const flags of result.rows) {
    const index = Number(flags.ord) - 1;
    const row = rows[index]!;
    body +=
      [
        row.linkId,
        row.host,
        row.occurredAt,
        row.userAgent,
        row.referrerHost,
        row.country,
        row.viaQr,
        row.device,
        row.browser,
        row.os,
        row.bot,
        flags.link_unique,
        flags.workspace_unique,
        counts[index]!,
        row.servedRule,
        flags.daily,
      ]
        .map(copyField)
        .join("\t") + "\n";
  }
  await pipeline(
    Readable.from([body]),
    client.query(
      copyFrom(
        "COPY scan_events (link_id, host, occurred_at, user_agent, referrer_host, country, via_qr, device, browser, os, bot, " +
          "link_unique, workspace_unique, scans, served_rule, daily) FROM STDIN",
      ),
    ),
  );
}

/** The links' quarter-hour breakdown rows of every raw row after `afterId` of the workspace's links, set-based. */
const FOLD_BREAKDOWNS = `
  WITH folded AS (
    SELECT l.workspace_id, e.link_id, date_bin('15 minutes', e.occurred_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS bucket,
      coalesce(e.country, 'unknown') AS country, coalesce(e.device, 'unknown') AS device, coalesce(e.browser, 'unknown') AS browser,
      coalesce(e.os, 'unknown') AS os, coalesce(e.referrer_host, 'direct') AS referrer,
      CASE WHEN e.via_qr THEN 'qr' ELSE 'link' END AS source,
      sum(e.scans) AS scans, count(*) FILTER (WHERE e.link_unique) AS uniques
    FROM scan_events e JOIN links l ON l.id = e.link_id
    WHERE e.occurred_at >= $1 AND e.id > $2 AND l.workspace_id = $3 AND NOT e.bot
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9
  )
  INSERT INTO scan_link_breakdowns AS b (workspace_id, link_id, grain, bucket, country, device, browser, os, referrer, source,
    scans, uniques)
  SELECT workspace_id, link_id, 15, bucket, country, device, browser, os, referrer, source, scans, uniques
  FROM folded ORDER BY 1, 2, 4, 5, 6, 7, 8, 9, 10
  ON CONFLICT (workspace_id, link_id, grain, bucket, country, device, browser, os, referrer, source) DO UPDATE
    SET scans = b.scans + excluded.scans, uniques = b.uniques + excluded.uniques`;

type Design = "legacy" | "current" | "copy" | "nobd" | "copy+nobd";

async function main(): Promise<void> {
  await boot();
  if (!(await backendCpuReadable())) throw new Error("PostgreSQL's backends are not on this machine.");
  const designs = options.designs.split(",") as Design[];
  const links = new Map<Design, SpreadLinks>();
  for (const design of designs) links.set(design, await seedSpreadLinks(Number(options.links)));
  const host = new URL(config().SHORT_BASE_URL).hostname;
  const cpu = new Map<Design, number[]>(designs.map((design) => [design, []]));
  const foldCpu = new Map<Design, number>(designs.map((design) => [design, 0]));
  const scans = new Map<Design, number>(designs.map((design) => [design, 0]));
  const since = new Date(Date.now() - 60_000);
  const watermark = new Map<Design, string>(designs.map((design) => [design, "0"]));
  const batches = Number(options.batches);
  const foldEvery = Number(options.fold);
  for (let index = 0; index < batches; index++) {
    for (const design of designs) {
      const rows = await randomScanRows(links.get(design)!, Number(options.batch), host);
      const before = await backendCpuNs();
      if (design === "legacy") await writeLegacyScanBatch(randomUUID(), rows);
      else
        await inWriterTransaction((client) =>
          writeVariant(client, `lever.${design}`, variant(design.startsWith("copy"), !design.endsWith("nobd")), rows),
        );
      const used = (await backendCpuNs()) - before;
      cpu.get(design)!.push(used / 1000 / rows.length);
      scans.set(design, scans.get(design)! + rows.length);
      if (design.endsWith("nobd") && ((index + 1) % foldEvery === 0 || index === batches - 1)) {
        const foldBefore = await backendCpuNs();
        await inWriterTransaction(async (client) => {
          const { rows: top } = await client.query<{ id: string }>("SELECT coalesce(max(id), 0)::text AS id FROM scan_events");
          await client.query(FOLD_BREAKDOWNS, [since, watermark.get(design), links.get(design)!.workspaceId]);
          watermark.set(design, top[0]!.id);
        });
        foldCpu.set(design, foldCpu.get(design)! + ((await backendCpuNs()) - foldBefore) / 1000);
      }
      console.log(`batch ${index + 1} ${design}: ${(used / 1000 / rows.length).toFixed(1)} µs a scan`);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const legacyMedian = cpu.has("legacy") ? median(cpu.get("legacy")!) : NaN;
  for (const design of designs) {
    const fold = foldCpu.get(design)! / scans.get(design)!;
    const total = median(cpu.get(design)!) + fold;
    console.log(
      `${design.padEnd(10)} median batch ${median(cpu.get(design)!).toFixed(1)} µs a scan + fold ${fold.toFixed(1)} = ${total.toFixed(1)}` +
        ` (×${(total / legacyMedian).toFixed(2)} of legacy)`,
    );
  }
  await closePool();
}

runBenchScript(main);
