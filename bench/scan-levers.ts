import type { ScanRow } from "@/lib/analytics/enrich";
import { batchStatementValues, inWriterTransaction, WRITE_SCAN_BATCH } from "@/lib/analytics/store/append";
import { config } from "@/lib/config";
import { closePool, pool } from "@/lib/db/pool";
import { boot } from "@/server/boot";
import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { backendCpu, backendCpuReadable, backendCpuSinceNs, writeLegacyScanBatch } from "./scan-cost";
import { runBenchScript } from "./script";
import { randomScanRows, seedSpreadLinks, type SpreadLinks } from "./spread-links";

/**
 * The scan writer's next levers measured side by side, each design a batch in turns over links of
 * its own, PostgreSQL CPU a scan from its backends' counters.
 * - legacy: the release before's statement; current: today's;
 * - copy: today's statement without its raw INSERT, answering each row's flags, then the raw rows by COPY;
 * - nobd: today's statement without the links' breakdown rows, and a fold every --fold batches
 *   writing them set-based from the raw rows (its CPU counted with the design's);
 * - copy+nobd: both;
 * - nototals: today's statement without the links' totals rows, folded later as nobd's breakdowns;
 * - nobd+nototals: neither of the link's rows in the batch, both folded later.
 * --link-index adds the raw rows' index by link first (what reading a link's scans not yet folded would need).
 */
const { values: options } = parseArgs({
  options: {
    links: { type: "string", default: "20000" },
    batch: { type: "string", default: "5000" },
    batches: { type: "string", default: "8" },
    fold: { type: "string", default: "4" },
    designs: { type: "string", default: "legacy,current,copy,nobd,copy+nobd" },
    "link-index": { type: "boolean", default: false },
    reuse: { type: "boolean", default: false },
  },
});
process.env.TRUSTED_PROXY_HOPS = "1";

const BREAKDOWNS = /breakdowns AS \(\n\s+INSERT INTO scan_link_breakdowns[\s\S]*?RETURNING 1\n\s+\),/;
const LINK_TOTALS = /link_rollups AS \(\n\s+INSERT INTO scan_rollups[\s\S]*?RETURNING 1\n\s+\),/;
const RAW = /raw AS \(\n\s+INSERT INTO scan_events[\s\S]*?RETURNING 1\n\s+\),/;
const ANSWER = /SELECT ord FROM input WHERE ([\s\S]*?) ORDER BY ord\s*$/;

function variant(copy: boolean, breakdowns: boolean, linkTotals = true): string {
  let text = WRITE_SCAN_BATCH;
  if (!linkTotals) text = replaceOnce(text, LINK_TOTALS, "link_rollups AS (SELECT 1),");
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

/** With --reuse, the spread workspaces an earlier run seeded, oldest first (seeding a million links a design takes minutes). */
async function seededLinks(): Promise<SpreadLinks[]> {
  const { rows } = await pool().query<{ id: string; slug: string }>(
    "SELECT w.id, (SELECT slug FROM links WHERE workspace_id = w.id LIMIT 1) AS slug FROM workspaces w WHERE w.name = 'Spread benchmark' ORDER BY w.created_at",
  );
  const found: SpreadLinks[] = [];
  for (const { id, slug } of rows) {
    const ids = await pool().query<{ id: string }>("SELECT id FROM links WHERE workspace_id = $1", [id]);
    found.push({
      workspaceId: id,
      prefix: slug.slice(0, slug.indexOf("-") + 1),
      count: ids.rows.length,
      linkIds: ids.rows.map((row) => row.id),
    });
  }
  return found;
}

async function writeVariant(client: pg.PoolClient, name: string, text: string, rows: ScanRow[], values: string[]): Promise<void> {
  const counts = rows.map(() => 1);
  const result = await client.query<{ ord: string; link_unique: boolean; workspace_unique: boolean; daily: boolean }>({
    name,
    text,
    values,
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

/**
 * The links' quarter-hour breakdown rows of the raw rows of the batches written since the last fold
 * (BATCH_RAW_ROWS: their id ranges, a condition), set-based; the bench writes one batch at a time, so
 * a batch's rows are the ids the sequence gave out meanwhile.
 */
const FOLD_BREAKDOWNS = (BATCH_RAW_ROWS: string) => `
  WITH folded AS (
    SELECT l.workspace_id, e.link_id, date_bin('15 minutes', e.occurred_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS bucket,
      coalesce(e.country, 'unknown') AS country, coalesce(e.device, 'unknown') AS device, coalesce(e.browser, 'unknown') AS browser,
      coalesce(e.os, 'unknown') AS os, coalesce(e.referrer_host, 'direct') AS referrer,
      CASE WHEN e.via_qr THEN 'qr' ELSE 'link' END AS source,
      sum(e.scans) AS scans, count(*) FILTER (WHERE e.link_unique) AS uniques
    FROM scan_events e JOIN links l ON l.id = e.link_id
    WHERE e.occurred_at >= $1 AND (${BATCH_RAW_ROWS}) AND l.workspace_id = $2 AND NOT e.bot
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9
  )
  INSERT INTO scan_link_breakdowns AS b (workspace_id, link_id, grain, bucket, country, device, browser, os, referrer, source,
    scans, uniques)
  SELECT workspace_id, link_id, 15, bucket, country, device, browser, os, referrer, source, scans, uniques
  FROM folded ORDER BY 1, 2, 4, 5, 6, 7, 8, 9, 10
  ON CONFLICT (workspace_id, link_id, grain, bucket, country, device, browser, os, referrer, source) DO UPDATE
    SET scans = b.scans + excluded.scans, uniques = b.uniques + excluded.uniques`;

/** The links' quarter-hour totals of the same raw rows, set-based (bots included). */
const FOLD_TOTALS = (BATCH_RAW_ROWS: string) => `
  INSERT INTO scan_rollups AS r (workspace_id, link_id, grain, dimension, bucket, value, scans, uniques, bots)
  SELECT l.workspace_id, e.link_id, 15, 0, date_bin('15 minutes', e.occurred_at, TIMESTAMPTZ '2000-01-01 00:00:00+00'), '',
    coalesce(sum(e.scans) FILTER (WHERE NOT e.bot), 0), count(*) FILTER (WHERE e.link_unique),
    coalesce(sum(e.scans) FILTER (WHERE e.bot), 0)
  FROM scan_events e JOIN links l ON l.id = e.link_id
  WHERE e.occurred_at >= $1 AND (${BATCH_RAW_ROWS}) AND l.workspace_id = $2
  GROUP BY 1, 2, 5 ORDER BY 1, 2, 5
  ON CONFLICT (workspace_id, link_id, grain, dimension, bucket, value) DO UPDATE
    SET scans = r.scans + excluded.scans, uniques = r.uniques + excluded.uniques, bots = r.bots + excluded.bots`;

type Design = "legacy" | "current" | "copy" | "nobd" | "copy+nobd" | "nototals" | "nobd+nototals";

async function main(): Promise<void> {
  await boot();
  // What reading a link's scans not folded yet would need: the raw rows' index by link (dropped in 2026-11 for the writer's sake).
  if (options["link-index"])
    await pool().query("CREATE INDEX IF NOT EXISTS scan_events_link_tail ON scan_events (link_id, occurred_at)");
  if (!(await backendCpuReadable())) throw new Error("PostgreSQL's backends are not on this machine.");
  const designs = options.designs.split(",") as Design[];
  const links = new Map<Design, SpreadLinks>();
  const seeded = options.reuse ? await seededLinks() : [];
  for (const design of designs) links.set(design, seeded.shift() ?? (await seedSpreadLinks(Number(options.links))));
  const host = new URL(config().SHORT_BASE_URL).hostname;
  const cpu = new Map<Design, number[]>(designs.map((design) => [design, []]));
  const foldCpu = new Map<Design, number>(designs.map((design) => [design, 0]));
  const scans = new Map<Design, number>(designs.map((design) => [design, 0]));
  const since = new Date(Date.now() - 60_000);
  const pending = new Map<Design, string[]>(designs.map((design) => [design, []]));
  const lastId = async () =>
    (await pool().query<{ id: string }>("SELECT last_value::text AS id FROM scan_events_id_seq")).rows[0]!.id;
  const batches = Number(options.batches);
  const foldEvery = Number(options.fold);
  for (let index = 0; index < batches; index++) {
    for (const design of designs) {
      const rows = await randomScanRows(links.get(design)!, Number(options.batch), host);
      const idsFrom = await lastId();
      const before = await backendCpu();
      if (design === "legacy") await writeLegacyScanBatch(randomUUID(), rows);
      else {
        // Encoded before the transaction: a process holding a million links' ids in memory can pause
        // (its collector) longer than the writer's 3 s idle-in-transaction bound.
        const values = await batchStatementValues(
          randomUUID(),
          rows,
          rows.map(() => 1),
        );
        await inWriterTransaction((client) =>
          writeVariant(
            client,
            `lever.${design}`,
            variant(design.startsWith("copy"), !design.includes("nobd"), !design.includes("nototals")),
            rows,
            values,
          ),
        );
      }
      const used = await backendCpuSinceNs(before);
      pending.get(design)!.push(`(e.id > ${idsFrom} AND e.id <= ${await lastId()})`);
      cpu.get(design)!.push(used / 1000 / rows.length);
      scans.set(design, scans.get(design)! + rows.length);
      const folds = design.includes("nobd") || design.includes("nototals");
      if (folds && ((index + 1) % foldEvery === 0 || index === batches - 1)) {
        const foldBefore = await backendCpu();
        await inWriterTransaction(async (client) => {
          // A link probed a raw row, as the batch statement does: without stats on the day's new
          // partition the planner otherwise hashes every design's links (5 million) for each fold.
          await client.query("SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off");
          const values = [since, links.get(design)!.workspaceId];
          const batchRows = pending.get(design)!.join(" OR ");
          if (design.includes("nobd")) await client.query(FOLD_BREAKDOWNS(batchRows), values);
          if (design.includes("nototals")) await client.query(FOLD_TOTALS(batchRows), values);
          pending.set(design, []);
        });
        foldCpu.set(design, foldCpu.get(design)! + (await backendCpuSinceNs(foldBefore)) / 1000);
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
