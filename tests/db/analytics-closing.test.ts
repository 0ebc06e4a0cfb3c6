import type { ScanRow } from "@/lib/analytics/enrich";
import { parkScanBatch, writeOldestParkedBatch, writeScanBatch } from "@/lib/analytics/store/append";
import { closeScanDays } from "@/lib/analytics/store/fold";
import { pruneScanData } from "@/lib/analytics/store/partitions";
import { recentScansByLink, scansPerLinkSince } from "@/lib/analytics/store/reads";
import { setClock } from "@/lib/clock";
import { db, disconnectDb } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLink, report } from "../support/analytics";
import { newUser, type TestUser } from "../support/api";
import { seededRandom } from "../support/random";

/**
 * Closing UTC days (lib/analytics/store/fold.ts, closeScanDays) against the raw rows, with every session
 * of this file's database in a zone 13:45 ahead of UTC: instants sent without their offset would be
 * read 13:45 off, and a day cut in the session's zone would not be a UTC day.
 */
const SESSION_ZONE = "Pacific/Chatham";
const DAY_MS = 86_400_000;
const COUNTRIES = ["AU", "NZ", null];

beforeAll(async () => {
  const name = new URL(process.env.DATABASE_URL!).pathname.slice(1);
  await db().$executeRawUnsafe(`ALTER DATABASE "${name}" SET "TimeZone" = '${SESSION_ZONE}'`);
  await disconnectDb();
  const [zone] = await db().$queryRaw<{ zone: string }[]>`SELECT current_setting('TimeZone') AS zone`;
  expect(zone!.zone).toBe(SESSION_ZONE);
});

afterAll(() => setClock(undefined));

/** `count` scans of the links from `from` on, `stepMs` apart; some bots, some folded, some served by a rule. */
function scansFrom(
  linkIds: string[],
  from: number,
  count: number,
  stepMs: number,
  seed: number,
): { rows: ScanRow[]; counts: number[] } {
  const next = seededRandom(seed);
  const rows = Array.from({ length: count }, (_, index): ScanRow => {
    const bot = next() < 0.1;
    return {
      linkId: linkIds[index % linkIds.length]!,
      host: "s.test.example",
      occurredAt: new Date(from + index * stepMs + Math.floor(next() * 1000)),
      userAgent: bot ? "Googlebot/2.1" : "Mozilla/5.0",
      referrerHost: null,
      country: COUNTRIES[Math.floor(next() * COUNTRIES.length)]!,
      viaQr: next() < 0.5,
      device: bot ? null : next() < 0.5 ? "mobile" : "desktop",
      browser: null,
      os: null,
      bot,
      visitor: bot ? null : (Math.floor(next() * 5) * 0x1111).toString(16).padStart(32, "0"),
      servedRule: next() < 0.3 ? 0 : null,
    };
  });
  return { rows, counts: rows.map(() => (next() < 0.2 ? 3 : 1)) };
}

type Counted = { key: string; scans: number; uniques?: number };
const sorted = (rows: Counted[]) => [...rows].sort((a, b) => a.key.localeCompare(b.key));

/** Counts of the raw rows in [start, end), by `key`, within `where`. */
async function raw(
  workspaceId: string,
  linkId: string | null,
  start: string,
  end: string,
  key: Prisma.Sql,
  options: { where?: Prisma.Sql; uniques?: "link" | "workspace" } = {},
): Promise<Counted[]> {
  const unique = Prisma.raw(options.uniques === "workspace" ? "e.workspace_unique" : "e.link_unique");
  const rows = await db().$queryRaw<{ key: string; scans: bigint; uniques: bigint }[]>`
    SELECT ${key} AS key, sum(e.scans) FILTER (WHERE NOT e.bot) AS scans, count(*) FILTER (WHERE ${unique}) AS uniques
    FROM scan_events e JOIN links l ON l.id = e.link_id
    WHERE l.workspace_id = ${workspaceId} AND (${linkId}::text IS NULL OR e.link_id = ${linkId})
      AND e.occurred_at >= ${start}::timestamptz AND e.occurred_at < ${end}::timestamptz ${options.where ?? Prisma.empty}
    GROUP BY 1 HAVING sum(e.scans) FILTER (WHERE NOT e.bot) > 0`;
  return sorted(
    rows.map((row) => ({
      key: row.key,
      scans: Number(row.scans),
      ...(options.uniques ? { uniques: Number(row.uniques) } : {}),
    })),
  );
}

const onlyScans = (rows: Counted[]) => sorted(rows.map((row) => ({ key: row.key, scans: row.scans })));

/** Every answer of the ranges in three zones, for the workspace and a link, equals the raw rows' counts. */
async function expectAnswersOfRawRows(user: TestUser, links: string[], now: number): Promise<void> {
  const ranges = [
    { start: "2026-10-25", end: "2026-11-23" },
    { start: "2026-11-19T18:00", end: "2026-11-21T06:00" },
  ];
  for (const timezone of ["UTC", "Pacific/Chatham", "America/St_Johns"]) {
    for (const range of ranges) {
      for (const linkId of [null, links[0]!]) {
        const scope: Record<string, string> = linkId ? { link_id: linkId } : {};
        const context = JSON.stringify({ timezone, ...range, linkId });
        const days = await report(user, { ...scope, ...range, timezone, group_by: "day" });
        const uniques = linkId ? "link" : "workspace";
        const rawOf = (key: Prisma.Sql, options: { where?: Prisma.Sql; uniques?: "link" | "workspace" } = {}) =>
          raw(user.workspaceId, linkId, days.start, days.end, key, options);
        const [total] = await rawOf(Prisma.sql`'total'`, { uniques });
        const [bots] = await db().$queryRaw<{ bots: bigint | null }[]>`
          SELECT sum(e.scans) FILTER (WHERE e.bot) AS bots FROM scan_events e JOIN links l ON l.id = e.link_id
          WHERE l.workspace_id = ${user.workspaceId} AND (${linkId}::text IS NULL OR e.link_id = ${linkId})
            AND e.occurred_at >= ${days.start}::timestamptz AND e.occurred_at < ${days.end}::timestamptz`;
        expect(days.total, context).toEqual({
          scans: total?.scans ?? 0,
          uniques: total?.uniques ?? 0,
          bots: Number(bots?.bots ?? 0),
        });
        expect(sorted(days.data.filter((row: Counted) => row.scans > 0)), context).toEqual(
          await rawOf(Prisma.sql`to_char(e.occurred_at AT TIME ZONE ${timezone}, 'YYYY-MM-DD')`, { uniques }),
        );
        const by = async (query: Record<string, string>) =>
          sorted((await report(user, { ...scope, ...range, timezone, ...query })).data);
        expect(await by({ group_by: "country" }), context).toEqual(
          await rawOf(Prisma.sql`coalesce(e.country, 'unknown')`, { uniques }),
        );
        expect(onlyScans(await by({ group_by: "served" })), context).toEqual(
          await rawOf(Prisma.sql`coalesce('rule:' || e.served_rule, 'default')`),
        );
        expect(onlyScans(await by({ group_by: "device", country: "AU" })), context).toEqual(
          await rawOf(Prisma.sql`coalesce(e.device, 'unknown')`, { where: Prisma.sql`AND e.country = 'AU'` }),
        );
        const filtered = await report(user, { ...scope, ...range, timezone, group_by: "day", device: "mobile" });
        const [mobile] = await rawOf(Prisma.sql`'total'`, { where: Prisma.sql`AND e.device = 'mobile'` });
        expect(filtered.total.scans, context).toBe(mobile?.scans ?? 0);
        if (!linkId)
          expect(await by({ group_by: "link" }), context).toEqual(await rawOf(Prisma.sql`e.link_id`, { uniques: "link" }));
      }
    }
  }
  // The exports' scans_30d and the links list: each link's scans of the UTC days since, today included.
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  for (const days of [3, 30]) {
    const since = new Date(today - (days - 1) * DAY_MS);
    const expected = await raw(
      user.workspaceId,
      null,
      since.toISOString(),
      new Date(today + DAY_MS).toISOString(),
      Prisma.sql`e.link_id`,
    );
    const exported = await scansPerLinkSince(user.workspaceId, links, since);
    expect(
      sorted([...exported].filter(([, scans]) => scans > 0).map(([key, scans]) => ({ key, scans }))),
      `since ${since.toISOString()}`,
    ).toEqual(expected);
    const listed = await db().$queryRaw<
      { link_id: string; scans: bigint }[]
    >`${await recentScansByLink(user.workspaceId, days, new Date(now))}`;
    expect(
      sorted(listed.filter((row) => row.scans > 0).map((row) => ({ key: row.link_id, scans: Number(row.scans) }))),
      `list of ${days} days`,
    ).toEqual(expected);
  }
}

/** The workspace's rollups: every UTC day the sum of its quarter hours, every month the sum of its days, in every table. */
async function expectGrainsAddUp(user: TestUser, closedBefore: string): Promise<void> {
  const keyOf: Record<string, string> = {
    scan_rollups: "dimension::text || '|' || link_id || '|' || value",
    scan_link_breakdowns: "link_id || '|' || concat_ws('|', country, device, browser, os, referrer, source)",
  };
  for (const table of ["scan_rollups", "scan_link_breakdowns"]) {
    const mismatched = await db().$queryRawUnsafe<unknown[]>(
      `WITH keyed AS (
         SELECT grain, bucket, ${keyOf[table]} AS k,
           scans, uniques, ${table === "scan_rollups" ? "bots" : "0"} AS bots
         FROM ${table} WHERE workspace_id = $1 AND bucket < $2::timestamptz
       ), quarters AS (
         SELECT k, date_trunc('day', bucket, 'UTC') AS day, sum(scans) s, sum(uniques) u, sum(bots) b
         FROM keyed WHERE grain = 15 GROUP BY 1, 2
       ), days AS (
         SELECT k, bucket AS day, sum(scans) s, sum(uniques) u, sum(bots) b FROM keyed WHERE grain = 1440 GROUP BY 1, 2
       ), day_months AS (
         SELECT k, date_trunc('month', day, 'UTC') AS month, sum(s) s, sum(u) u, sum(b) b FROM days GROUP BY 1, 2
       ), months AS (
         SELECT k, bucket AS month, sum(scans) s, sum(uniques) u, sum(bots) b FROM keyed WHERE grain = 0 GROUP BY 1, 2
       )
       SELECT 'day' AS what, coalesce(q.k, d.k) AS k, coalesce(q.day, d.day) AS at, q.s, d.s AS other FROM quarters q
         FULL JOIN days d ON d.k = q.k AND d.day = q.day
         WHERE (q.s, q.u, q.b) IS DISTINCT FROM (d.s, d.u, d.b)
       UNION ALL
       SELECT 'month', coalesce(m.k, d.k), coalesce(m.month, d.month), m.s, d.s FROM months m
         FULL JOIN day_months d ON d.k = m.k AND d.month = m.month
         WHERE date_trunc('month', $2::timestamptz, 'UTC') > coalesce(m.month, d.month)
           AND (m.s, m.u, m.b) IS DISTINCT FROM (d.s, d.u, d.b)`,
      user.workspaceId,
      closedBefore,
    );
    expect(mismatched, table).toEqual([]);
  }
}

async function closingState() {
  const rows = await db().$queryRaw<{ daily_from: number; closed_before: number }[]>`
    SELECT extract(epoch FROM daily_from)::float8 * 1000 AS daily_from, extract(epoch FROM closed_before)::float8 * 1000 AS closed_before
    FROM scan_rollup_days`;
  return rows.map((row) => ({
    dailyFrom: new Date(row.daily_from).toISOString(),
    closedBefore: new Date(row.closed_before).toISOString(),
  }));
}

describe("closing UTC days, in sessions of a zone far from UTC", () => {
  it("counts as the raw rows before the migration, from it on, while days wait and after racing closings and batches", async () => {
    const user = await newUser("closing-zone");
    const links = [await createLink(user, "https://example.com/z1"), await createLink(user, "https://example.com/z2")];
    let now = Date.UTC(2026, 10, 20, 10);
    setClock({ now: () => now });

    // Before the migration: no closing state, the writer adds every scan to every grain.
    await db().$executeRaw`DELETE FROM scan_rollup_days`;
    const before = scansFrom(links, Date.UTC(2026, 9, 28), 400, 5_500_000, 1);
    await writeScanBatch(randomUUID(), before.rows, before.counts);
    await expectAnswersOfRawRows(user, links, now);
    expect(await closeScanDays(now)).toEqual({ closed: [], locked: true });
    await pruneScanData(90, now);
    await expectAnswersOfRawRows(user, links, now);

    // The migration, on 20 November: today waits to be closed from now on.
    await db()
      .$executeRaw`INSERT INTO scan_rollup_days (daily_from, closed_before) VALUES ('2026-11-20T00:00:00Z', '2026-11-20T00:00:00Z')`;
    expect(await closingState()).toEqual([{ dailyFrom: "2026-11-20T00:00:00.000Z", closedBefore: "2026-11-20T00:00:00.000Z" }]);
    const today = scansFrom(links, Date.UTC(2026, 10, 20, 10), 120, 240_000, 2);
    const late = scansFrom(links, Date.UTC(2026, 10, 18, 23), 60, 120_000, 3);
    await writeScanBatch(randomUUID(), today.rows, today.counts);
    await writeScanBatch(randomUUID(), late.rows, late.counts);
    await expectAnswersOfRawRows(user, links, now);

    // The next UTC day: two instances close while batches of both days are written and parked batches taken.
    now = Date.UTC(2026, 10, 21, 0, 17);
    const parked = scansFrom(links, Date.UTC(2026, 10, 20, 23, 30), 80, 45_000, 4);
    const parkedId = randomUUID();
    await parkScanBatch(parkedId, parked.rows, parked.counts);
    const racing = [5, 6, 7, 8].map((seed) => scansFrom(links, Date.UTC(2026, 10, 20, 20) + seed * 3_600_000, 60, 61_000, seed));
    await Promise.all([
      closeScanDays(now),
      closeScanDays(now),
      writeOldestParkedBatch(),
      ...racing.map(({ rows, counts }) => writeScanBatch(randomUUID(), rows, counts)),
    ]);
    expect(await db().scanInbox.count()).toBe(0);
    expect(await closingState()).toEqual([{ dailyFrom: "2026-11-21T00:00:00.000Z", closedBefore: "2026-11-21T00:00:00.000Z" }]);
    await expectAnswersOfRawRows(user, links, now);
    await expectGrainsAddUp(user, "2026-11-21T00:00:00Z");

    // Days later (the job missed two days), with late scans of a closed day and of the waiting ones.
    now = Date.UTC(2026, 10, 22, 9);
    const waiting = scansFrom(links, Date.UTC(2026, 10, 21, 1), 90, 700_000, 9);
    await writeScanBatch(randomUUID(), waiting.rows, waiting.counts);
    now = Date.UTC(2026, 10, 23, 5);
    const lateAgain = scansFrom(links, Date.UTC(2026, 10, 20, 3), 70, 1_100_000, 10);
    await Promise.all([closeScanDays(now), writeScanBatch(randomUUID(), lateAgain.rows, lateAgain.counts)]);
    await expectAnswersOfRawRows(user, links, now);
    await expectGrainsAddUp(user, "2026-11-23T00:00:00Z");
  });
});

describe("a clock far ahead", () => {
  it("closes up to its own today, then every scan goes to its day and month at once: answers stay exact", async () => {
    const user = await newUser("closing-clock");
    const links = [await createLink(user, "https://example.com/c1"), await createLink(user, "https://example.com/c2")];
    await db()
      .$executeRaw`UPDATE scan_rollup_days SET daily_from = '2026-11-20T00:00:00Z', closed_before = '2026-11-20T00:00:00Z'`;
    const now = Date.UTC(2026, 10, 21, 2);
    setClock({ now: () => now });
    const waiting = scansFrom(links, Date.UTC(2026, 10, 20, 1), 150, 400_000, 21);
    await writeScanBatch(randomUUID(), waiting.rows, waiting.counts);
    // One instance's clock jumps a year ahead and runs the job; the others' clocks are right.
    const ahead = scansFrom(links, Date.UTC(2026, 10, 20, 22), 150, 60_000, 22);
    await Promise.all([closeScanDays(Date.UTC(2027, 10, 21, 2)), writeScanBatch(randomUUID(), ahead.rows, ahead.counts)]);
    expect(await closingState()).toEqual([{ dailyFrom: "2027-11-21T00:00:00.000Z", closedBefore: "2027-11-21T00:00:00.000Z" }]);
    const after = scansFrom(links, Date.UTC(2026, 10, 21, 0, 30), 100, 50_000, 23);
    await writeScanBatch(randomUUID(), after.rows, after.counts);
    await expectAnswersOfRawRows(user, links, now);
    expect((await closeScanDays(now)).closed).toEqual([]);
    await expectAnswersOfRawRows(user, links, now);
    await expectGrainsAddUp(user, "2026-11-22T00:00:00Z");
    await db()
      .$executeRaw`UPDATE scan_rollup_days SET daily_from = '2026-11-21T00:00:00Z', closed_before = '2026-11-21T00:00:00Z'`;
  });
});

describe("moving daily_from", () => {
  it("holds no batch back while it waits for another instance's closing, and moves once that closing ends", async () => {
    const user = await newUser("closing-lock");
    const links = [await createLink(user, "https://example.com/lock")];
    await db()
      .$executeRaw`UPDATE scan_rollup_days SET daily_from = '2026-11-20T00:00:00Z', closed_before = '2026-11-20T00:00:00Z'`;
    // Another instance's closing holds the state row for as long as it sums a day.
    const closing = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await closing.connect();
    try {
      await closing.query("BEGIN");
      await closing.query("SELECT * FROM scan_rollup_days FOR UPDATE");
      const moved = closeScanDays(Date.UTC(2026, 10, 21, 0, 17));
      await expect
        .poll(async () => {
          const [waiting] = await db().$queryRaw<{ n: number }[]>`
            SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE wait_event_type = 'Lock' AND query LIKE '%scan_rollup_days%' AND pid <> pg_backend_pid()`;
          return waiting!.n;
        })
        .toBe(1);
      const batch = scansFrom(links, Date.UTC(2026, 10, 20, 23), 20, 60_000, 11);
      const started = performance.now();
      await writeScanBatch(randomUUID(), batch.rows, batch.counts);
      expect(performance.now() - started).toBeLessThan(1_000);
      await closing.query("COMMIT");
      expect((await moved).locked).toBe(true);
      expect(await closingState()).toEqual([{ dailyFrom: "2026-11-21T00:00:00.000Z", closedBefore: "2026-11-21T00:00:00.000Z" }]);
    } finally {
      await closing.end();
    }
  });
});
