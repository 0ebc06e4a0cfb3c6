import type { ScanRow } from "@/lib/analytics/enrich";
import { scanRetentionJob } from "@/lib/analytics/jobs";
import { applyScanRetention } from "@/lib/analytics/service";
import { writeScanBatch } from "@/lib/analytics/store/append";
import { closeScanDays } from "@/lib/analytics/store/fold";
import { pruneScanData } from "@/lib/analytics/store/partitions";
import { DAY, DIMENSIONS, MONTH, QUARTER } from "@/lib/analytics/store/rollups";
import { setClock } from "@/lib/clock";
import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { startJob } from "@/lib/schedule";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLink, report } from "../support/analytics";
import { call, newUser, type TestUser } from "../support/api";
import { seededRandom } from "../support/random";

const COUNTRIES = ["AU", "NZ", "GB", null];

/**
 * Scans spread over fourteen months, plus some on the instants where UTC months and days and the
 * zones' days begin (or end a millisecond before), from a few returning visitors; one in ten a bot.
 */
function scansOf(linkIds: string[]): ScanRow[] {
  const next = seededRandom(12);
  const from = Date.UTC(2025, 8, 15);
  const to = Date.UTC(2026, 10, 20);
  const boundaries = [
    Date.UTC(2026, 0, 1),
    Date.UTC(2026, 0, 1) - 1,
    Date.UTC(2026, 2, 1),
    Date.UTC(2025, 10, 1) - 1,
    Date.UTC(2025, 11, 31, 13, 30), // midnight starting 1 January in Adelaide (UTC+10:30)
    Date.UTC(2026, 5, 30, 14, 30),
    Date.UTC(2026, 5, 30, 14, 30) - 1, // midnight starting 1 July in Adelaide (UTC+9:30)
    Date.UTC(2026, 0, 31, 18, 15), // midnight starting 1 February in Kathmandu (UTC+5:45)
    Date.UTC(2026, 1, 1, 3, 30), // midnight starting 1 February in St John's (UTC-3:30)
  ];
  const times = [...boundaries, ...Array.from({ length: 500 }, () => from + Math.floor(next() * (to - from)))];
  return times.map((time, index) => {
    const bot = next() < 0.1;
    return {
      linkId: linkIds[index % linkIds.length]!,
      host: "s.test.example",
      occurredAt: new Date(time),
      userAgent: bot ? "Googlebot/2.1" : "Mozilla/5.0",
      referrerHost: null,
      country: COUNTRIES[Math.floor(next() * COUNTRIES.length)]!,
      viaQr: next() < 0.5,
      device: bot ? null : "mobile",
      browser: null,
      os: null,
      bot,
      visitor: bot ? null : (Math.floor(next() * 6) * 0x1111).toString(16).padStart(32, "0"),
    };
  });
}

/** Scans each row stands for: mostly one, one row in four a run of two to five identical scans. */
function foldedCounts(length: number): number[] {
  const next = seededRandom(34);
  return Array.from({ length }, () => (next() < 0.25 ? 2 + Math.floor(next() * 4) : 1));
}

type Counted = { key: string; scans: number; uniques: number };

/**
 * The same counts straight from the raw events, in the zone: each scan once (a raw row adds the
 * scans it stands for), a unique where the writer flagged the visitor's first scan of the UTC day
 * (for the link, or for the workspace; each link's row in group_by=link counts its own uniques).
 */
async function fromRawRows(
  workspaceId: string,
  linkId: string | null,
  start: string,
  end: string,
  timezone: string,
  key: "day" | "country" | "served" | "link" | "total",
): Promise<Counted[]> {
  const unique = Prisma.raw(linkId || key === "link" ? "e.link_unique" : "e.workspace_unique");
  const keyOf = {
    day: Prisma.sql`to_char(e.occurred_at AT TIME ZONE ${timezone}, 'YYYY-MM-DD')`,
    country: Prisma.sql`coalesce(e.country, 'unknown')`,
    served: Prisma.sql`coalesce('rule:' || e.served_rule, 'default')`,
    link: Prisma.sql`e.link_id`,
    total: Prisma.sql`'total'`,
  }[key];
  const rows = await db().$queryRaw<{ key: string; scans: bigint; uniques: bigint }[]>`
    SELECT ${keyOf} AS key, sum(e.scans) FILTER (WHERE NOT e.bot) AS scans, count(*) FILTER (WHERE ${unique}) AS uniques
    FROM scan_events e JOIN links l ON l.id = e.link_id
    WHERE l.workspace_id = ${workspaceId} AND (${linkId}::text IS NULL OR e.link_id = ${linkId})
      AND e.occurred_at >= ${start}::timestamptz AND e.occurred_at < ${end}::timestamptz
    GROUP BY 1 HAVING sum(e.scans) FILTER (WHERE NOT e.bot) > 0`;
  return sorted(rows.map((row) => ({ key: row.key, scans: Number(row.scans), uniques: Number(row.uniques) })));
}

const sorted = (rows: Counted[]) => [...rows].sort((a, b) => a.key.localeCompare(b.key));

describe("rollups against the raw events", () => {
  it("answers from the month, day and quarter-hour rollups exactly what the raw rows count, in UTC and in half- and quarter-hour zones", async () => {
    const user = await newUser("rollups");
    const links = [await createLink(user, "https://example.com/a"), await createLink(user, "https://example.com/b")];
    const scans = scansOf(links);
    // Some rows stand for a run of identical scans (the buffer's folding): one raw row with their count.
    const counts = foldedCounts(scans.length);
    for (let i = 0; i < scans.length; i += 40)
      await writeScanBatch(`rollups-${i}`, scans.slice(i, i + 40), counts.slice(i, i + 40));
    // A batch retried after its commit adds nothing, to the days nor (through them) to the months.
    await writeScanBatch("rollups-0", scans.slice(0, 40), counts.slice(0, 40));
    expect(await db().scanEvent.count({ where: { linkId: { in: links } } })).toBe(scans.length);
    expect((await db().scanEvent.aggregate({ where: { linkId: { in: links } }, _sum: { scans: true } }))._sum.scans).toBe(
      counts.reduce((a, b) => a + b, 0),
    );

    // A link's own destination's rows are no longer written (its total less its rules' stands for
    // them); one written before must not count twice.
    await db().$executeRaw`
      INSERT INTO scan_rollups (workspace_id, link_id, grain, dimension, bucket, value, scans, uniques, bots)
      SELECT workspace_id, link_id, grain, ${DIMENSIONS.served}, bucket, 'default', scans, uniques, 0 FROM scan_rollups
      WHERE link_id = ${links[0]} AND dimension = ${DIMENSIONS.total} AND bucket < '2026-01-01'`;

    await expectAnswersOfRawRows(user, links);
  });

  it("answers exactly while days wait to be closed; once closed, days and months add up, late scans and racing closings too", async () => {
    const user = await newUser("rollup-closing");
    const links = [await createLink(user, "https://example.com/e"), await createLink(user, "https://example.com/f")];
    // Every day of these scans waits to be closed: the writer adds them to their quarter hours only.
    await db().$executeRaw`UPDATE scan_rollup_days SET daily_from = '2025-01-01T00:00Z', closed_before = '2025-01-01T00:00Z'`;
    const scans = scansOf(links);
    const counts = foldedCounts(scans.length);
    const late = scans.slice(0, 60).map((scan) => ({ ...scan, occurredAt: new Date(scan.occurredAt.getTime() + 1) }));
    const part = <T>(values: T[], part: number) => values.filter((_, index) => index % 4 === part);
    await Promise.all([0, 1, 2, 3].map((index) => writeScanBatch(`closing-${index}`, part(scans, index), part(counts, index))));
    const grains = () => db().$queryRaw<{ grain: number }[]>`
      SELECT DISTINCT grain FROM scan_rollups WHERE workspace_id = ${user.workspaceId}
      UNION SELECT DISTINCT grain FROM scan_link_breakdowns WHERE workspace_id = ${user.workspaceId}`;
    expect(await grains()).toEqual([{ grain: QUARTER }]);
    await expectAnswersOfRawRows(user, links);

    // Two instances close the same days while a batch of scans of those days is written.
    const now = Date.UTC(2026, 10, 25, 3);
    const [first, second] = await Promise.all([closeScanDays(now), closeScanDays(now), writeScanBatch("closing-late", late)]);
    const closedDays = [...first!.closed, ...second!.closed];
    expect(new Set(closedDays).size).toBe(closedDays.length);
    // Each day with scans once; a late scan's day too when the batch came before the closing moved on.
    const daysOf = (rows: ScanRow[]) => new Set(rows.map((scan) => scan.occurredAt.toISOString().slice(0, 10)));
    expect(closedDays.every((day) => daysOf([...scans, ...late]).has(day))).toBe(true);
    expect(closedDays.length).toBeGreaterThanOrEqual(daysOf(scans).size);
    const [state] = await db().$queryRaw<
      { daily_from: Date; closed_before: Date }[]
    >`SELECT daily_from, closed_before FROM scan_rollup_days`;
    expect(state).toEqual({ daily_from: new Date(Date.UTC(2026, 10, 25)), closed_before: new Date(Date.UTC(2026, 10, 25)) });
    await expectGrainsAddUp(user, [...scans, ...late], [...counts, ...late.map(() => 1)]);
    await expectAnswersOfRawRows(user, links);
    expect((await closeScanDays(now)).closed).toEqual([]);
  });

  it("counts exactly, without a deadlock, batches written at once that share links, visitors and the workspace's rows", async () => {
    const user = await newUser("rollup-concurrent");
    const links: string[] = [];
    for (let i = 0; i < 6; i++) links.push(await createLink(user, `https://example.com/concurrent-${i}`));
    const scans = scansOf(links);
    const counts = foldedCounts(scans.length);
    // Eight batches over every link and visitor, each in its own order, all sent at once: the
    // writer's connections run two at a time, taking the same rows (a deadlock would fail a batch).
    const next = seededRandom(56);
    const order = scans.map((_, index) => index).sort(() => next() - 0.5);
    const batches = Array.from({ length: 8 }, (_, part) => order.filter((_, index) => index % 8 === part));
    await Promise.all(
      batches.map((indexes, part) =>
        writeScanBatch(
          `concurrent-${part}`,
          indexes.map((index) => scans[index]!),
          indexes.map((index) => counts[index]!),
        ),
      ),
    );
    expect(await db().scanEvent.count({ where: { linkId: { in: links } } })).toBe(scans.length);
    await expectAnswersOfRawRows(user, links);
  });

  it("keeps every UTC month equal to the sum of its days and of its quarter hours, per scope, dimension and value", async () => {
    const user = await newUser("rollup-grains");
    const links = [await createLink(user, "https://example.com/c"), await createLink(user, "https://example.com/d")];
    const scans = scansOf(links);
    const counts = foldedCounts(scans.length);
    // Concurrent writers upsert the same day rows: the month rows follow every increment.
    const part = <T>(values: T[], part: number) => values.filter((_, index) => index % 4 === part);
    await Promise.all([0, 1, 2, 3].map((index) => writeScanBatch(`grains-${index}`, part(scans, index), part(counts, index))));
    await expectGrainsAddUp(user, scans, counts);
  });
});

/** Every report of four ranges in four zones, for the workspace and a link, equals the raw rows' counts. */
async function expectAnswersOfRawRows(user: TestUser, links: string[]): Promise<void> {
  const ranges = [
    { start: "2025-10-01", end: "2026-10-31" }, // whole months, with days and quarter hours at each end
    { start: "2025-12-30", end: "2026-03-01" }, // across a new year, a month in the middle
    { start: "2026-02-10", end: "2026-02-20" }, // days only
    { start: "2025-12-31T20:00", end: "2026-01-01T04:00" }, // quarter hours only
  ];
  for (const timezone of ["UTC", "Australia/Adelaide", "Asia/Kathmandu", "America/St_Johns"]) {
    for (const range of ranges) {
      for (const linkId of [null, links[0]!]) {
        const scope: Record<string, string> = linkId ? { link_id: linkId } : {};
        const context = JSON.stringify({ timezone, ...range, linkId });
        const days = await report(user, { ...scope, ...range, timezone, group_by: "day" });
        const raw = (key: "day" | "country" | "served" | "link" | "total") =>
          fromRawRows(user.workspaceId, linkId, days.start, days.end, timezone, key);
        const [total] = await raw("total");
        expect(days.total, context).toEqual({
          scans: total?.scans ?? 0,
          uniques: total?.uniques ?? 0,
          bots: expect.any(Number),
        });
        expect(sorted(days.data.filter((row: Counted) => row.scans > 0)), context).toEqual(await raw("day"));
        expect(sorted((await report(user, { ...scope, ...range, timezone, group_by: "country" })).data), context).toEqual(
          await raw("country"),
        );
        expect(sorted((await report(user, { ...scope, ...range, timezone, group_by: "served" })).data), context).toEqual(
          await raw("served"),
        );
        if (!linkId)
          expect(sorted((await report(user, { ...range, timezone, group_by: "link" })).data), context).toEqual(await raw("link"));
      }
    }
  }
}

/** The workspace's scans once in each grain, and every UTC month the sum of its days and of its quarter hours. */
async function expectGrainsAddUp(user: TestUser, scans: ScanRow[], counts: number[]): Promise<void> {
  const sums = await db().$queryRaw<{ grain: number; months: bigint; scans: bigint; uniques: bigint; bots: bigint }[]>`
      SELECT grain, count(DISTINCT (dimension, link_id, value, date_trunc('month', bucket, 'UTC'))) AS months,
        sum(scans)::bigint AS scans, sum(uniques)::bigint AS uniques, sum(bots)::bigint AS bots
      FROM scan_rollups WHERE workspace_id = ${user.workspaceId} GROUP BY grain ORDER BY grain`;
  expect(sums.map((row) => row.grain)).toEqual([MONTH, QUARTER, DAY]);
  const [months, quarters, days] = sums.map((row) => ({
    months: Number(row.months),
    scans: Number(row.scans),
    uniques: Number(row.uniques),
    bots: Number(row.bots),
  }));
  expect(quarters).toEqual(months);
  expect(days).toEqual(months);
  const mismatched = await db().$queryRaw<unknown[]>`
      SELECT m.dimension, m.link_id, m.value, m.bucket FROM scan_rollups m
      CROSS JOIN LATERAL (
        SELECT sum(d.scans) AS scans, sum(d.uniques) AS uniques, sum(d.bots) AS bots FROM scan_rollups d
        WHERE d.workspace_id = m.workspace_id AND d.grain = ${DAY} AND d.dimension = m.dimension AND d.link_id = m.link_id AND
          d.value = m.value
          AND d.bucket >= m.bucket AND d.bucket < ((m.bucket AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC') days
      WHERE m.workspace_id = ${user.workspaceId} AND m.grain = ${MONTH}
        AND (m.scans, m.uniques, m.bots) IS DISTINCT FROM (days.scans, days.uniques, days.bots)`;
  expect(mismatched).toEqual([]);
  // Each person's scan counts once in each of the workspace's 8 dimensions and once in its link's
  // total; these links have no rules, so no served row of a link.
  const people = scans.reduce((total, scan, index) => total + (scan.bot ? 0 : counts[index]!), 0);
  expect(months!.scans).toBe(people * (8 + 1));

  // A link's breakdown rows: once per person's scan in each grain, every month the sum of its days and quarters.
  const breakdowns = await db().$queryRaw<{ grain: number; scans: bigint; uniques: bigint }[]>`
      SELECT grain, sum(scans)::bigint AS scans, sum(uniques)::bigint AS uniques
      FROM scan_link_breakdowns WHERE workspace_id = ${user.workspaceId} GROUP BY grain ORDER BY grain`;
  expect(breakdowns.map((row) => [row.grain, Number(row.scans)])).toEqual([
    [MONTH, people],
    [QUARTER, people],
    [DAY, people],
  ]);
  expect(new Set(breakdowns.map((row) => Number(row.uniques))).size).toBe(1);
  const breakdownMismatches = await db().$queryRaw<unknown[]>`
      SELECT m.link_id, m.bucket FROM scan_link_breakdowns m
      CROSS JOIN LATERAL (
        SELECT g.grain, sum(d.scans) AS scans, sum(d.uniques) AS uniques
        FROM (VALUES (${DAY}::smallint), (${QUARTER}::smallint)) g(grain)
        LEFT JOIN scan_link_breakdowns d ON d.workspace_id = m.workspace_id AND d.link_id = m.link_id AND d.grain = g.grain
          AND (d.country, d.device, d.browser, d.os, d.referrer, d.source) = (m.country, m.device, m.browser, m.os, m.referrer, m.source)
          AND d.bucket >= m.bucket AND d.bucket < ((m.bucket AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC'
        GROUP BY g.grain) parts
      WHERE m.workspace_id = ${user.workspaceId} AND m.grain = ${MONTH}
        AND (m.scans, m.uniques) IS DISTINCT FROM (parts.scans, parts.uniques)`;
  expect(breakdownMismatches).toEqual([]);
}

describe("retention", () => {
  const DAY_MS = 86_400_000;
  const NOW = Date.UTC(2026, 10, 20, 12);
  const CRON_SECRET = "cron-secret-for-the-retention";

  afterEach(() => {
    vi.useRealTimers();
    setClock(undefined);
    delete process.env.CRON_SECRET;
    delete process.env.SCAN_RETENTION_DAYS;
    resetConfig();
  });

  /** `count` scans of the link `daysAgo` days before NOW, one visitor each. */
  function scansAt(linkId: string, daysAgo: number, count: number): ScanRow[] {
    return scansOf([linkId])
      .slice(0, count)
      .map((scan, index) => ({
        ...scan,
        occurredAt: new Date(NOW - daysAgo * DAY_MS + index * 1000),
        visitor: scan.bot ? null : index.toString(16).padStart(32, "0"),
      }));
  }

  async function everyView(user: TestUser, linkId: string) {
    const range = { start: "2026-06-01", end: "2026-11-20" };
    return Promise.all([
      report(user, { link_id: linkId, ...range, group_by: "day", timezone: "Australia/Adelaide" }),
      report(user, { ...range, group_by: "country", timezone: "Asia/Kathmandu" }),
      report(user, { ...range, group_by: "link" }),
    ]);
  }

  it("deletes raw events past SCAN_RETENTION_DAYS by GET /api/cron/scan-retention; analytics answers the same afterwards", async () => {
    process.env.CRON_SECRET = CRON_SECRET;
    process.env.SCAN_RETENTION_DAYS = "30";
    resetConfig();
    setClock({ now: () => NOW });
    const user = await newUser("retention");
    const linkId = await createLink(user, "https://example.com/kept");
    const expired = [...scansAt(linkId, 120, 30), ...scansAt(linkId, 31, 20)];
    const kept = [...scansAt(linkId, 29, 25), ...scansAt(linkId, 1, 10)];
    await writeScanBatch("retention-old", expired);
    await writeScanBatch("retention-new", kept);
    const before = await everyView(user, linkId);
    expect(before[0].total.scans).toBe([...expired, ...kept].filter((scan) => !scan.bot).length);

    expect((await call("GET", "/api/cron/scan-retention")).status).toBe(401);
    expect((await call("GET", "/api/cron/scan-retention", { token: "not-the-cron-secret-at-all" })).status).toBe(401);
    const run = await call("GET", "/api/cron/scan-retention", { token: CRON_SECRET });
    expect(run.status).toBe(200);
    // The file's other tests wrote older scans too: they go in the same run.
    expect(run.body).toEqual({
      retention_days: 30,
      deleted_before: new Date(NOW - 30 * DAY_MS).toISOString(),
      events_deleted: expect.any(Number),
    });
    expect(run.body.events_deleted).toBeGreaterThanOrEqual(expired.length);
    expect(await db().scanEvent.count({ where: { occurredAt: { lt: new Date(NOW - 30 * DAY_MS) } } })).toBe(0);

    const left = await db().scanEvent.findMany({ where: { linkId }, select: { occurredAt: true } });
    expect(left).toHaveLength(kept.length);
    expect(left.every((row) => row.occurredAt.getTime() >= NOW - 30 * DAY_MS)).toBe(true);
    expect(await everyView(user, linkId)).toEqual(before);
    // Visitor hashes and batch claims older than two days are gone as well.
    expect(await db().scanVisitor.count({ where: { day: { lt: new Date(NOW - 2 * DAY_MS) } } })).toBe(0);

    const again = await call("GET", "/api/cron/scan-retention", { token: CRON_SECRET });
    expect(again.body.events_deleted).toBe(0);
  });

  it("never loses a count when it runs while batches of scans older than the cutoff are being written", async () => {
    const user = await newUser("retention-race");
    const linkId = await createLink(user, "https://example.com/raced");
    const batches = Array.from({ length: 8 }, (_, index) => scansAt(linkId, 100 + index, 40));
    await Promise.all([
      ...batches.map((rows, index) => writeScanBatch(`race-${index}`, rows)),
      ...Array.from({ length: 4 }, () => pruneScanData(90, NOW)),
    ]);
    await pruneScanData(90, NOW);
    expect(await db().scanEvent.count({ where: { linkId } })).toBe(0);
    const people = batches.flat().filter((scan) => !scan.bot).length;
    const total = (await report(user, { link_id: linkId, start: "2026-07-01", end: "2026-08-31" })).total;
    expect(total).toEqual({ scans: people, uniques: expect.any(Number), bots: batches.flat().length - people });
  });

  it("keeps the raw rows of a day not closed yet past the retention, and closes it before deleting them", async () => {
    const user = await newUser("retention-unclosed");
    const linkId = await createLink(user, "https://example.com/unclosed");
    const [template] = await db().$queryRaw<{ daily_from: Date; closed_before: Date }[]>`SELECT * FROM scan_rollup_days`;
    const waitingFrom = new Date(NOW - 50 * DAY_MS);
    await db().$executeRaw`UPDATE scan_rollup_days SET daily_from = ${waitingFrom}, closed_before = ${waitingFrom}`;
    try {
      const rows = [...scansAt(linkId, 45, 20), ...scansAt(linkId, 40, 20)];
      await writeScanBatch("unclosed", rows);
      const before = await everyView(user, linkId);
      expect(before[0].total.scans).toBe(rows.filter((scan) => !scan.bot).length);

      await pruneScanData(30, NOW);
      expect(await db().scanEvent.count({ where: { linkId } })).toBe(rows.length);
      process.env.SCAN_RETENTION_DAYS = "30";
      resetConfig();
      setClock({ now: () => NOW });
      await applyScanRetention();
      expect(await db().scanEvent.count({ where: { linkId } })).toBe(0);
      expect(await everyView(user, linkId)).toEqual(before);
    } finally {
      await db()
        .$executeRaw`UPDATE scan_rollup_days SET daily_from = ${template!.daily_from}, closed_before = ${template!.closed_before}`;
    }
  });

  it("runs a minute after the self-hosted server starts, then every hour", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
    setClock({ now: () => NOW });
    const user = await newUser("retention-timer");
    const linkId = await createLink(user, "https://example.com/timed");
    await writeScanBatch("timer-old", scansAt(linkId, 91, 5));
    const timer = startJob(scanRetentionJob);
    try {
      await vi.advanceTimersByTimeAsync(59_000);
      expect(await db().scanEvent.count({ where: { linkId } })).toBe(5);
      await vi.advanceTimersByTimeAsync(1_000);
      await expect.poll(() => db().scanEvent.count({ where: { linkId } })).toBe(0);

      await writeScanBatch("timer-old-again", scansAt(linkId, 91, 3));
      await vi.advanceTimersByTimeAsync(59 * 60_000);
      expect(await db().scanEvent.count({ where: { linkId } })).toBe(3);
      await vi.advanceTimersByTimeAsync(60_000);
      await expect.poll(() => db().scanEvent.count({ where: { linkId } })).toBe(0);
    } finally {
      timer.stop();
    }
  });
});
