import { config } from "@/lib/config";
import { createPool, pool as processPool } from "@/lib/db/pool";
import { newId, randomString } from "@/lib/db/random";
import { MAX_RULES } from "@/lib/links/routing";
import { SLUG_ALPHABET } from "@/lib/links/slugs";
import { ACTIVE, QUARANTINE } from "@/lib/links/status";
import { processSingleton } from "@/lib/process-singleton";
import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";

/** One link per scenario, each in its own workspace, so a scenario's scans are counted on their own. */
export type BenchLink = { workspaceId: string; slug: string };
export type BenchLinks = {
  active: BenchLink;
  rules: BenchLink;
  quarantined: BenchLink;
  silent: BenchLink;
  exact: BenchLink;
  sustained: BenchLink;
  proxy: BenchLink;
  logos: BenchLink;
  cold: { workspaceId: string; slugs: string[] };
};

/**
 * The bench's own queries. On PostgreSQL, the process pool. On the embedded database (a pool of one,
 * whose named statements every connection shares) a connection of its own that never clears them:
 * the process pool's fresh connection runs DEALLOCATE ALL, which would drop the statements of the app being measured.
 */
const benchPool = processSingleton("bench.pool", () =>
  config().DATABASE_POOL_SIZE <= 1 ? createPool(config().DATABASE_URL!, 1) : processPool(),
);

function pool(): pg.Pool {
  return benchPool.get();
}

/** Ends the bench's own connection on the embedded database (the process pool is closePool's). */
export async function closeBenchPool(): Promise<void> {
  const own = benchPool.reset();
  if (own && own !== processPool()) await own.end();
}

export const COLD_LINKS = 20_000;
const INSERT_CHUNK = 5000;

async function workspace(): Promise<string> {
  const id = newId("ws");
  await pool().query("INSERT INTO workspaces (id, name, kind) VALUES ($1, 'Benchmark', 'team')", [id]);
  return id;
}

async function insertLinks(
  workspaceId: string,
  status: number,
  slugs: string[],
  destination: (slug: string) => string,
): Promise<void> {
  for (let from = 0; from < slugs.length; from += INSERT_CHUNK) {
    const chunk = slugs.slice(from, from + INSERT_CHUNK);
    await pool().query(
      `INSERT INTO links (id, workspace_id, slug, reusable, status, destination)
       SELECT id, $1, slug, false, $2, destination
       FROM unnest($3::text[], $4::text[], $5::text[]) AS seeded(id, slug, destination)`,
      [workspaceId, status, chunk.map(() => newId("lnk")), chunk, chunk.map(destination)],
    );
  }
}

/** One link with a workspace of its own, so its scans are counted apart. */
export async function oneLink(status: number, prefix: string, destination: string): Promise<BenchLink> {
  const workspaceId = await workspace();
  const slug = `${prefix}${randomString(SLUG_ALPHABET, 8)}`;
  await insertLinks(workspaceId, status, [slug], () => destination);
  return { workspaceId, slug };
}

/**
 * The active link again, with the most routing rules a link may have, none of which the bench's
 * desktop browser (no country header, no Accept-Language) matches: every visit evaluates all 20,
 * and each of the visitor's facts (country, device, OS, language) is asked for.
 */
async function routedLink(): Promise<BenchLink> {
  const link = await oneLink(ACTIVE, "r", "https://example.com/active");
  const conditions = [
    { country: ["AU", "NZ"] },
    { device: ["mobile", "tablet"] },
    { os: ["ios", "android"] },
    { language: ["fr", "de"] },
  ];
  const rules = Array.from({ length: MAX_RULES }, (_, index) => ({
    when: conditions[index % conditions.length],
    destination: `https://example.com/routed/${index}`,
  }));
  await pool().query("UPDATE links SET rules = $1 WHERE slug = $2", [JSON.stringify(rules), link.slug]);
  return link;
}

export async function seedBenchLinks(silentHost: string): Promise<BenchLinks> {
  const coldWorkspace = await workspace();
  const coldSlugs = Array.from({ length: COLD_LINKS }, (_, index) => `c${index}${randomString(SLUG_ALPHABET, 6)}`);
  await insertLinks(coldWorkspace, ACTIVE, coldSlugs, (slug) => `https://example.com/${slug}`);
  return {
    active: await oneLink(ACTIVE, "a", "https://example.com/active"),
    rules: await routedLink(),
    quarantined: await oneLink(QUARANTINE, "q", "https://example.com/quarantined"),
    silent: await oneLink(QUARANTINE, "s", `https://${silentHost}/quarantined`),
    exact: await oneLink(ACTIVE, "e", "https://example.com/exact"),
    sustained: await oneLink(QUARANTINE, "m", "https://example.com/sustained"),
    proxy: await oneLink(ACTIVE, "p", "https://example.com/proxy"),
    logos: await oneLink(ACTIVE, "l", "https://example.com/logos"),
    cold: { workspaceId: coldWorkspace, slugs: coldSlugs },
  };
}

/** Scans recorded so far for the workspace's links. */
export async function scansIn(workspaceId: string): Promise<number> {
  const { rows } = await pool().query<{ scans: string }>(
    "SELECT coalesce(sum(scans), 0) AS scans FROM scan_events WHERE link_id IN (SELECT id FROM links WHERE workspace_id = $1)",
    [workspaceId],
  );
  return Number(rows[0]!.scans);
}

/**
 * The count once the app's scan buffer has flushed: unchanged over `quietMs` (15 s by default) of
 * reads half a second apart, giving up after 5 minutes. A batch of 5,000 scans on as many different
 * links (the cold miss) fans out to 70,000 rollup rows and takes several seconds under load, so the
 * writer drains an 8 s burst of cold misses for a minute or more; a shorter quiet spell stopped mid-drain.
 */
export async function waitForScans(workspaceId: string, quietMs = 15_000): Promise<number> {
  let last = await scansIn(workspaceId);
  let unchanged = 0;
  for (let attempt = 0; attempt < 600 && unchanged * 500 < quietMs; attempt++) {
    await sleep(500);
    const now = await scansIn(workspaceId);
    unchanged = now === last ? unchanged + 1 : 0;
    last = now;
  }
  return last;
}

/**
 * The environment a bench's `npm start` runs with: what boot() settled (the embedded database's address, a
 * development AUTH_SECRET), the bench's hosts and its DNS.
 */
export function benchServerEnv(shortHost: string, dnsResolver: string): Record<string, string | undefined> {
  return {
    DATABASE_URL: config().DATABASE_URL,
    DATABASE_POOL_SIZE: String(config().DATABASE_POOL_SIZE),
    AUTH_SECRET: config().AUTH_SECRET,
    SHORT_BASE_URL: `http://${shortHost}`,
    BASE_URL: "http://app.bench.example",
    DNS_RESOLVER: dnsResolver,
    RECHECK_INTERVAL_SECONDS: "0",
  };
}
