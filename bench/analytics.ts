import { readAnalytics, type AnalyticsRequest } from "@/lib/analytics/store/reads";
import { DAY, DIMENSIONS, MONTH, QUARTER } from "@/lib/analytics/store/rollups";
import { config, resetConfig } from "@/lib/config";
import { disconnectDb } from "@/lib/db/client";
import { migrate } from "@/lib/db/migrate";
import { newId } from "@/lib/db/random";
import { boot } from "@/server/boot";
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import pg from "pg";
import { runBenchScript } from "./script";

/**
 * The analytics half of `npm run bench`: a year of scans seeded straight into the rollups with
 * generate_series (one link with 50 million scans; a workspace of 1,000 links with 50 million more),
 * then GET /api/analytics's query (lib/analytics/store/reads.ts, in-process) timed for a year grouped
 * by day in Australia/Adelaide, and by country, device and referrer. Target: under 100 ms each.
 *
 * Seeded as the writer stores them: quarter-hour and UTC-day rows per dimension value (the
 * database's trigger adds the UTC-month rows). Raw events are not seeded: no query reads them, and a
 * year-old raw row is long pruned (SCAN_RETENTION_DAYS). Rows no timed query reads (the single
 * link's workspace totals, the 1,000 links' dimensions) are not seeded either; the workspace's
 * links get their day totals, and their quarter-hour totals on the first and last day of the year
 * (the days a year-long range cuts through), which group_by=link reads.
 */
const SCANS_PER_YEAR = 50_000_000;
const QUARTERS_PER_YEAR = 365 * 96;
const WORKSPACE_LINKS = 1000;
const RUNS = 7;
const TIME_ZONE = "Australia/Adelaide";
const TARGET_MS = 100;

/** Weights of each dimension's values in the synthetic traffic. */
const VALUES: Record<Exclude<keyof typeof DIMENSIONS, "total">, [string, number][]> = {
  country: [
    ["AU", 40],
    ["US", 14],
    ["GB", 8],
    ["NZ", 6],
    ["IN", 5],
    ["DE", 4],
    ["FR", 3],
    ["JP", 3],
    ["CA", 3],
    ["SG", 2],
    ["ID", 2],
    ["PH", 2],
    ["CN", 1],
    ["BR", 1],
    ["ZA", 1],
    ["IE", 1],
    ["NL", 1],
    ["MY", 1],
    ["KR", 1],
    ["unknown", 1],
  ],
  served: [
    ["default", 90],
    ["rule:0", 7],
    ["rule:1", 3],
  ],
  device: [
    ["mobile", 55],
    ["desktop", 35],
    ["tablet", 8],
    ["unknown", 2],
  ],
  browser: [
    ["Safari", 40],
    ["Chrome", 38],
    ["Samsung Internet for Android", 8],
    ["Microsoft Edge", 6],
    ["Firefox", 5],
    ["unknown", 3],
  ],
  os: [
    ["iOS", 42],
    ["Android", 28],
    ["Windows", 16],
    ["macOS", 10],
    ["Linux", 2],
    ["unknown", 2],
  ],
  referrer: [
    ["direct", 50],
    ["www.google.com", 12],
    ["l.facebook.com", 8],
    ["t.co", 5],
    ["www.linkedin.com", 4],
    ["out.reddit.com", 3],
    ["news.ycombinator.com", 2],
    ...Array.from({ length: 18 }, (_, i) => [`partner-${i + 1}.example`, 1] as [string, number]),
  ],
  source: [
    ["qr", 60],
    ["link", 40],
  ],
};

type Timing = { query: string; medianMs: number; maxMs: number };

async function main(): Promise<void> {
  const { embedded } = await boot();
  const serverUrl = config().DATABASE_URL!;
  // A database of its own (dropped at the end), so the development database never holds the seed.
  const benchDatabase = `permalink_analytics_bench_${randomBytes(4).toString("hex")}`;
  const benchUrl = embedded ? serverUrl : await createDatabase(serverUrl, benchDatabase);
  const client = new pg.Client({ connectionString: benchUrl });
  await client.connect();
  try {
    process.env.DATABASE_URL = benchUrl;
    resetConfig();
    const yearStart = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 - 365 * 86_400_000);
    const single = await seedWorkspace(client, 1, yearStart);
    const workspace = await seedWorkspace(client, WORKSPACE_LINKS, yearStart);
    await seedCombinations(client, workspace.workspaceId);
    await client.query("VACUUM ANALYZE scan_rollups");
    await client.query("VACUUM ANALYZE scan_link_breakdowns");

    const end = new Date(Date.now()).toISOString().slice(0, 10);
    const start = new Date(Date.now() - 364 * 86_400_000).toISOString().slice(0, 10);
    /** Each case, and whether it spans the seeded year (its total must then be about SCANS_PER_YEAR). */
    const cases: [string, AnalyticsRequest, boolean][] = [];
    for (const [label, scope] of [
      ["one link, 50M scans", { workspaceId: single.workspaceId, linkId: single.linkIds[0]! }],
      ["workspace of 1,000 links, 50M scans", { workspaceId: workspace.workspaceId, linkId: null }],
    ] as const) {
      for (const groupBy of ["day", "country", "device", "referrer"] as const) {
        cases.push([
          `${label}: a year by ${groupBy} (${TIME_ZONE})`,
          { ...scope, groupBy, start, end, timezone: TIME_ZONE },
          true,
        ]);
      }
    }
    cases.push([
      `workspace of 1,000 links: a year by link (${TIME_ZONE})`,
      { workspaceId: workspace.workspaceId, linkId: null, groupBy: "link", start, end, timezone: TIME_ZONE },
      true,
    ]);
    // Within a filter: the days from the workspace's dimension rows; the countries and the links from
    // each active link's combination rows (lib/analytics/store/reads.ts, withinFilter).
    for (const groupBy of ["day", "country", "link"] as const) {
      cases.push([
        `workspace of 1,000 links within device=mobile: a year by ${groupBy} (${TIME_ZONE})`,
        {
          workspaceId: workspace.workspaceId,
          linkId: null,
          groupBy,
          start,
          end,
          timezone: TIME_ZONE,
          filter: { dimension: "device", value: "mobile" },
        },
        false,
      ]);
    }
    cases.push([
      `one link: 31 days by hour (${TIME_ZONE})`,
      {
        workspaceId: single.workspaceId,
        linkId: single.linkIds[0]!,
        groupBy: "hour",
        start: new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10),
        end,
        timezone: TIME_ZONE,
      },
      false,
    ]);

    const timings: Timing[] = [];
    for (const [query, request, wholeYear] of cases) {
      const report = await readAnalytics(request);
      if (wholeYear && report.total.scans < SCANS_PER_YEAR * 0.99)
        throw new Error(`${query}: counted ${report.total.scans} scans, expected about ${SCANS_PER_YEAR}`);
      timings.push(await time(query, () => readAnalytics(request)));
    }
    const markdown = table(timings);
    const date = new Date().toISOString();
    await mkdir("bench/results", { recursive: true });
    await writeFile(
      `bench/results/analytics-${date.replace(/[:.]/g, "-")}.json`,
      `${JSON.stringify({ date, database: embedded ? "embedded" : "PostgreSQL", runs: RUNS, timings }, null, 2)}\n`,
    );
    await writeFile(
      "bench/results/analytics-latest.md",
      `Measured ${date} on ${embedded ? "the embedded database" : "PostgreSQL"}, median and slowest of ` +
        `${RUNS} runs after one warm-up.\n\n${markdown}\n`,
    );
    console.log(markdown);
  } finally {
    await disconnectDb();
    await client.end();
    if (!embedded) await dropDatabase(serverUrl, benchDatabase);
    await embedded?.close();
  }
}

async function createDatabase(serverUrl: string, name: string): Promise<string> {
  await adminQuery(serverUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  await migrate(url.toString());
  return url.toString();
}

async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/**
 * A workspace whose `links` links share a year of SCANS_PER_YEAR scans. Its totals ('' scope, or
 * the link's own rows when it has one link) get every quarter hour and UTC day, per dimension
 * value; with many links, each link gets its day totals and its edge days' quarter hours.
 */
async function seedWorkspace(
  client: pg.Client,
  links: number,
  yearStart: Date,
): Promise<{ workspaceId: string; linkIds: string[] }> {
  const workspaceId = newId("ws");
  const linkIds = Array.from({ length: links }, () => newId("lnk"));
  await client.query("INSERT INTO workspaces (id, name, kind) VALUES ($1, 'Analytics benchmark', 'team')", [workspaceId]);
  await client.query(
    `INSERT INTO links (id, workspace_id, slug, reusable, status, destination)
     SELECT id, $1, 'bench' || ordinality || '-' || substr(md5(id), 1, 6), false, 0, 'https://example.com/' || ordinality
     FROM unnest($2::text[]) WITH ORDINALITY AS l(id, ordinality)`,
    [workspaceId, linkIds],
  );
  const scope = links === 1 ? linkIds[0]! : "";
  const started = Date.now();
  await seedQuarterHours(client, workspaceId, scope, yearStart);
  await client.query(
    `INSERT INTO scan_rollups (workspace_id, grain, dimension, link_id, bucket, value, scans, uniques, bots)
     SELECT workspace_id, $3::smallint, dimension, link_id, date_trunc('day', bucket, 'UTC'), value, sum(scans), sum(uniques), sum(bots)
     FROM scan_rollups WHERE workspace_id = $1 AND link_id = $2 AND grain = $4
     GROUP BY workspace_id, dimension, link_id, date_trunc('day', bucket, 'UTC'), value`,
    [workspaceId, scope, DAY, QUARTER],
  );
  if (links > 1) {
    // Each UTC day's total split over the links (the remainder to the first ones).
    await client.query(
      `INSERT INTO scan_rollups (workspace_id, grain, dimension, link_id, bucket, value, scans, uniques, bots)
       SELECT $1, $3::smallint, 0::smallint, l.id, d.bucket, '', d.scans / $4::int
         + (CASE WHEN l.n <= d.scans % $4::int THEN 1 ELSE 0 END), d.uniques / $4::int, 0
       FROM scan_rollups d CROSS JOIN unnest($2::text[]) WITH ORDINALITY AS l(id, n)
       WHERE d.workspace_id = $1 AND d.link_id = '' AND d.grain = $3 AND d.dimension = 0`,
      [workspaceId, linkIds, DAY, links],
    );
    // The same split of each quarter hour on the year's first and last day; links with no scans in it get no row.
    await client.query(
      `INSERT INTO scan_rollups (workspace_id, grain, dimension, link_id, bucket, value, scans, uniques, bots)
       SELECT $1, $3::smallint, 0::smallint, l.id, q.bucket, '', s.scans, s.scans * 7 / 10, 0
       FROM scan_rollups q CROSS JOIN unnest($2::text[]) WITH ORDINALITY AS l(id, n)
       CROSS JOIN LATERAL (SELECT q.scans / $4::int + (CASE WHEN l.n <= q.scans % $4::int THEN 1 ELSE 0 END) AS scans) s
       WHERE q.workspace_id = $1 AND q.link_id = '' AND q.grain = $3 AND q.dimension = 0 AND s.scans > 0
         AND (q.bucket < $5::timestamptz + interval '1 day' OR q.bucket >= $5::timestamptz + interval '364 days')`,
      [workspaceId, linkIds, QUARTER, links, yearStart],
    );
  }
  // Each UTC month the sum of its days, as the scan writer keeps them.
  await client.query(
    `INSERT INTO scan_rollups (workspace_id, grain, dimension, link_id, bucket, value, scans, uniques, bots)
     SELECT workspace_id, $2::smallint, dimension, link_id, date_trunc('month', bucket, 'UTC'), value, sum(scans), sum(uniques), sum(bots)
     FROM scan_rollups WHERE workspace_id = $1 AND grain = $3
     GROUP BY workspace_id, dimension, link_id, date_trunc('month', bucket, 'UTC'), value`,
    [workspaceId, MONTH, DAY],
  );
  console.log(
    `Seeded a year of ${SCANS_PER_YEAR.toLocaleString("en")} scans over ${links} link(s) in ` +
      `${((Date.now() - started) / 1000).toFixed(0)} s.`,
  );
  return { workspaceId, linkIds };
}

/** How each link's scans split into combination rows (country and device; the other columns one value). */
const COMBINATIONS: [string, string, number][] = [
  ["AU", "mobile", 30],
  ["US", "mobile", 25],
  ["AU", "desktop", 20],
  ["US", "desktop", 15],
  ["AU", "tablet", 6],
  ["US", "tablet", 4],
];

/**
 * Each link's combination rows (scan_link_breakdowns), as the writer keeps them beside its totals:
 * every row of the link's totals (month, day and the edge days' quarter hours) split by COMBINATIONS.
 */
async function seedCombinations(client: pg.Client, workspaceId: string): Promise<void> {
  const started = Date.now();
  const result = await client.query(
    `INSERT INTO scan_link_breakdowns (workspace_id, link_id, grain, bucket, country, device, browser, os, referrer, source,
       scans, uniques)
     SELECT r.workspace_id, r.link_id, r.grain, r.bucket, c.country, c.device, 'Safari', 'iOS', 'direct', 'qr',
       r.scans * c.weight / 100, r.uniques * c.weight / 100
     FROM scan_rollups r CROSS JOIN unnest($2::text[], $3::text[], $4::int[]) AS c(country, device, weight)
     WHERE r.workspace_id = $1 AND r.link_id <> '' AND r.dimension = 0 AND r.scans * c.weight / 100 > 0`,
    [
      workspaceId,
      COMBINATIONS.map(([country]) => country),
      COMBINATIONS.map(([, device]) => device),
      COMBINATIONS.map(([, , weight]) => weight),
    ],
  );
  console.log(`Seeded ${result.rowCount} combination rows in ${((Date.now() - started) / 1000).toFixed(0)} s.`);
}

/** Every quarter hour of the year: its share of the scans, split over each dimension's values by weight. */
async function seedQuarterHours(client: pg.Client, workspaceId: string, scope: string, yearStart: Date): Promise<void> {
  const values = Object.entries(VALUES).flatMap(([dimension, entries]) =>
    entries.map(([value, weight]) => ({ dimension: DIMENSIONS[dimension as keyof typeof VALUES], value, weight })),
  );
  await client.query(
    `WITH quarters AS (
       SELECT i, $3::timestamptz + i * interval '15 minutes' AS bucket,
              $4::bigint / $5 + CASE WHEN i < $4::bigint % $5 THEN 1 ELSE 0 END AS n
       FROM generate_series(0, $5 - 1) i
     ),
     weights AS (SELECT * FROM unnest($6::smallint[], $7::text[], $8::int[]) AS v(dimension, value, weight)),
     totals AS (SELECT dimension, sum(weight) AS total FROM weights GROUP BY dimension),
     cells AS (
       SELECT q.bucket, q.n, w.dimension, w.value, q.n * w.weight / t.total AS base,
              row_number() OVER (PARTITION BY q.i, w.dimension ORDER BY w.weight DESC, w.value) AS rank,
              sum(q.n * w.weight / t.total) OVER (PARTITION BY q.i, w.dimension) AS allotted
       FROM quarters q CROSS JOIN weights w JOIN totals t USING (dimension)
     )
     INSERT INTO scan_rollups (workspace_id, grain, dimension, link_id, bucket, value, scans, uniques, bots)
     SELECT $1, $9::smallint, 0::smallint, $2::text, bucket, '', n, n * 7 / 10, n / 20 FROM quarters
     UNION ALL
     SELECT $1, $9::smallint, dimension, $2::text, bucket, value, scans, scans * 7 / 10, 0
     FROM (SELECT *, base + CASE WHEN rank = 1 THEN n - allotted ELSE 0 END AS scans FROM cells) c
     WHERE scans > 0`,
    [
      workspaceId,
      scope,
      yearStart,
      SCANS_PER_YEAR,
      QUARTERS_PER_YEAR,
      values.map((v) => v.dimension),
      values.map((v) => v.value),
      values.map((v) => v.weight),
      QUARTER,
    ],
  );
}

async function time(query: string, run: () => Promise<unknown>): Promise<Timing> {
  const durations: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await run();
    durations.push(performance.now() - started);
  }
  durations.sort((a, b) => a - b);
  return { query, medianMs: round(durations[Math.floor(RUNS / 2)]!), maxMs: round(durations.at(-1)!) };
}

const round = (ms: number) => Math.round(ms * 10) / 10;

function table(timings: Timing[]): string {
  const lines = [`| query | median ms | slowest ms | under ${TARGET_MS} ms |`, "|---|---:|---:|:---:|"];
  for (const timing of timings)
    lines.push(`| ${timing.query} | ${timing.medianMs} | ${timing.maxMs} | ${timing.medianMs < TARGET_MS ? "yes" : "no"} |`);
  return lines.join("\n");
}

runBenchScript(main);
