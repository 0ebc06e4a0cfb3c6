import type { ScanRow } from "@/lib/analytics/enrich";
import { ScanBuffer, ShardedScanBuffer } from "@/lib/analytics/scan-buffer";
import { parkScanBatch, writeOldestParkedBatch, writeScanBatch } from "@/lib/analytics/store/append";
import { closeScanDays } from "@/lib/analytics/store/fold";
import { DAY, QUARTER } from "@/lib/analytics/store/rollups";
import { db } from "@/lib/db/client";
import { newId } from "@/lib/db/random";
import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLink, scanRow } from "../support/analytics";
import { newUser } from "../support/api";
import { seededRandom } from "../support/random";

/**
 * The scan writer as the process runs it (lib/analytics/scans.ts): scans split by link over two
 * buffers, each writing its batches with the real batch statement.
 */

// Tests here move the days the rollups close; on the embedded database every file shares them.
let rollupDays: { daily_from: Date; closed_before: Date }[] = [];
beforeEach(async () => {
  rollupDays = await db().$queryRaw`SELECT daily_from, closed_before FROM scan_rollup_days`;
});
afterEach(async () => {
  const [days] = rollupDays;
  if (days)
    await db().$executeRaw`UPDATE scan_rollup_days SET daily_from = ${days.daily_from.toISOString()}::timestamptz,
      closed_before = ${days.closed_before.toISOString()}::timestamptz`;
});

function scan(linkId: string, index: number): ScanRow {
  return scanRow(linkId, {
    occurredAt: new Date(Date.UTC(2026, 10, 26, 10) + index * 1000),
    visitor: (index % 50).toString(16).padStart(32, "0"),
  });
}

function writerBuffer(): ShardedScanBuffer<ScanRow> {
  const limits = { batchSize: 5000, flushAt: Infinity, maxBuffered: 100_000, parkAt: Infinity };
  return new ShardedScanBuffer<ScanRow>(
    2,
    (row) => row.linkId,
    (shardLimits, drops) =>
      new ScanBuffer<ScanRow>(
        (batch) => writeScanBatch(batch.id, batch.events, batch.counts),
        () => undefined,
        shardLimits,
        undefined,
        undefined,
        drops,
      ),
    limits,
  );
}

async function rawScans(links: string[]): Promise<number> {
  const [row] = await db().$queryRaw<{ scans: bigint | null }[]>`
    SELECT sum(scans) AS scans FROM scan_events WHERE link_id = ANY(${links}::text[])`;
  return Number(row?.scans ?? 0);
}

describe("draining the scan writer", () => {
  it("waits for the batches being written when nothing else is buffered, and reports none of them unwritten", async () => {
    const user = await newUser(`drain-${randomUUID().slice(0, 8)}`);
    const links = [await createLink(user, "https://example.com/drain-a"), await createLink(user, "https://example.com/drain-b")];
    const buffer = writerBuffer();
    for (let index = 0; index < 4000; index++) buffer.record(scan(links[index % 2]!, index));
    // The timer's flush has cut every waiting scan into the batches being written when SIGTERM comes.
    const flushing = buffer.flush();
    expect(buffer.stats().buffered).toBe(0);

    const unwritten = await buffer.drain(Date.now() + 6000);
    const writtenWhenDrained = await rawScans(links);
    await flushing;

    expect(writtenWhenDrained, "every scan was written by the time drain resolved").toBe(4000);
    expect(unwritten, "no scan was reported lost").toBe(0);
  });
});

describe("writers at once", () => {
  it("counts exactly, without a deadlock: two buffers' batches, parked batches of both buffers' links and closings of late days", async () => {
    const user = await newUser(`race-${randomUUID().slice(0, 8)}`);
    const links: string[] = [];
    for (let index = 0; index < 12; index++) links.push(await createLink(user, `https://example.com/race-${index}`));
    const next = seededRandom(77);
    const firstDay = Date.UTC(2026, 9, 1);
    await db().$executeRaw`UPDATE scan_rollup_days SET daily_from = ${new Date(firstDay).toISOString()}::timestamptz,
      closed_before = ${new Date(firstDay).toISOString()}::timestamptz`;
    // Scans of the days up to `lastDay`, over the given links, from 30 visitors shared by every link (one in ten a bot).
    const scansOf = (of: string[], lastDay: number, count: number): ScanRow[] =>
      Array.from({ length: count }, () => {
        const bot = next() < 0.1;
        return {
          ...scan(of[Math.floor(next() * of.length)]!, 0),
          occurredAt: new Date(firstDay + Math.floor(next() * (lastDay + 1)) * 86_400_000 + Math.floor(next() * 86_400_000)),
          country: ["AU", "NZ", null][Math.floor(next() * 3)]!,
          bot,
          visitor: bot
            ? null
            : Math.floor(next() * 30)
                .toString(16)
                .padStart(32, "0"),
          servedRule: next() < 0.2 ? 0 : null,
        };
      });
    const shardLinks = [links.filter((_, index) => index % 2 === 0), links.filter((_, index) => index % 2 === 1)];
    const written: ScanRow[] = [];
    for (let round = 1; round <= 4; round++) {
      const parked = Array.from({ length: 3 }, () => scansOf(links, round + 1, 200));
      for (const rows of parked)
        await parkScanBatch(
          randomUUID(),
          rows,
          rows.map(() => 1),
        );
      const shardBatches = shardLinks.map((of) => Array.from({ length: 4 }, () => scansOf(of, round + 1, 300)));
      const writeInTurn = async (batches: ScanRow[][]) => {
        for (const rows of batches) await writeScanBatch(randomUUID(), rows);
      };
      const writeParked = async () => {
        while ((await writeOldestParkedBatch()).taken);
      };
      // Round r closes every day before the r-th while both buffers and the parked batches write scans of those days.
      const now = firstDay + round * 86_400_000 + 3_600_000;
      await Promise.all([...shardBatches.map(writeInTurn), writeParked(), writeParked(), closeScanDays(now), closeScanDays(now)]);
      written.push(...parked.flat(), ...shardBatches.flat(2));
    }
    await closeScanDays(firstDay + 6 * 86_400_000);

    expect(await rawScans(links)).toBe(written.length);
    await expectRollupsOfRawRows(user.workspaceId, written);
  }, 60_000);
});

/** Every day's totals, per link and for the workspace, at the quarter-hour and day grains, and its uniques, as the raw rows count them. */
async function expectRollupsOfRawRows(workspaceId: string, written: ScanRow[]): Promise<void> {
  type Day = { scope: string; grain: number; day: string; scans: number; uniques: number; bots: number };
  const number = (rows: Record<string, unknown>[]) =>
    rows
      .map((row) => ({ ...row, scans: Number(row.scans), uniques: Number(row.uniques), bots: Number(row.bots) }) as Day)
      .sort((a, b) => `${a.scope}${a.grain}${a.day}`.localeCompare(`${b.scope}${b.grain}${b.day}`));
  const rollups = await db().$queryRaw<Record<string, unknown>[]>`
    SELECT link_id AS scope, grain, to_char(bucket AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
      sum(scans) AS scans, sum(uniques) AS uniques, sum(bots) AS bots
    FROM scan_rollups WHERE workspace_id = ${workspaceId} AND dimension = 0 AND grain IN (${QUARTER}, ${DAY})
    GROUP BY 1, 2, 3`;
  const raw = await db().$queryRaw<Record<string, unknown>[]>`
    SELECT scope, grain, day, sum(scans) FILTER (WHERE NOT bot) AS scans, count(*) FILTER (WHERE is_unique) AS uniques,
      coalesce(sum(scans) FILTER (WHERE bot), 0) AS bots
    FROM (
      SELECT e.link_id AS scope, e.link_unique AS is_unique, e.* FROM scan_events e JOIN links l ON l.id = e.link_id
      WHERE l.workspace_id = ${workspaceId}
      UNION ALL
      SELECT '' AS scope, e.workspace_unique AS is_unique, e.* FROM scan_events e JOIN links l ON l.id = e.link_id
      WHERE l.workspace_id = ${workspaceId}
    ) e CROSS JOIN (VALUES (${QUARTER}::int), (${DAY}::int)) g(grain)
    CROSS JOIN LATERAL (SELECT to_char(e.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day) d
    GROUP BY 1, 2, 3`;
  const toScans = (rows: Day[]) => rows.map((row) => ({ ...row, scans: row.scans || 0 }));
  expect(toScans(number(rollups))).toEqual(toScans(number(raw)));
  // A visitor's first scan of a UTC day is flagged exactly once per link. For the workspace it is an
  // estimate (docs/analytics.md): at least once, and at most once per link, when writers of two of its
  // links race on one visitor.
  const [flags] = await db().$queryRaw<{ link: bigint; workspace: bigint }[]>`
    SELECT count(*) FILTER (WHERE e.link_unique) AS link, count(*) FILTER (WHERE e.workspace_unique) AS workspace
    FROM scan_events e JOIN links l ON l.id = e.link_id WHERE l.workspace_id = ${workspaceId}`;
  const dayOf = (row: ScanRow) => row.occurredAt.toISOString().slice(0, 10);
  const visits = written.filter((row) => row.visitor !== null);
  const perLink = new Set(visits.map((row) => `${row.linkId} ${dayOf(row)} ${row.visitor}`)).size;
  const perWorkspace = new Set(visits.map((row) => `${dayOf(row)} ${row.visitor}`)).size;
  expect(flags!.link).toBe(BigInt(perLink));
  expect(Number(flags!.workspace)).toBeGreaterThanOrEqual(perWorkspace);
  expect(Number(flags!.workspace)).toBeLessThanOrEqual(perLink);
  // The links' breakdown rows hold the same scans and uniques as their totals, per grain.
  const breakdowns = await db().$queryRaw<{ grain: number; scans: bigint; uniques: bigint }[]>`
    SELECT grain, sum(scans) AS scans, sum(uniques) AS uniques FROM scan_link_breakdowns
    WHERE workspace_id = ${workspaceId} AND grain IN (${QUARTER}, ${DAY}) GROUP BY grain ORDER BY grain`;
  const totals = await db().$queryRaw<{ grain: number; scans: bigint; uniques: bigint }[]>`
    SELECT grain, sum(scans) AS scans, sum(uniques) AS uniques FROM scan_rollups
    WHERE workspace_id = ${workspaceId} AND link_id <> '' AND dimension = 0 AND grain IN (${QUARTER}, ${DAY})
    GROUP BY grain ORDER BY grain`;
  expect(breakdowns).toEqual(totals);
}

describe("whether a parked batch was claimed", () => {
  it("counts a parked batch anew when its scans are all bots, all of closed days, or of links that do not exist (none then)", async () => {
    const user = await newUser(`claimed-${randomUUID().slice(0, 8)}`);
    const link = await createLink(user, "https://example.com/claimed");
    const closedDay = Date.UTC(2026, 9, 10, 12);
    await db().$executeRaw`UPDATE scan_rollup_days SET daily_from = '2026-10-20T00:00Z', closed_before = '2026-10-20T00:00Z'`;
    const batches = {
      bots: Array.from({ length: 5 }, (_, index) => ({ ...scan(link, index), bot: true, visitor: null })),
      closed: Array.from({ length: 5 }, (_, index) => ({ ...scan(link, index), occurredAt: new Date(closedDay + index) })),
      missing: Array.from({ length: 5 }, (_, index) => scan(newId("lnk"), index)),
    };
    const written: Record<string, unknown> = {};
    for (const [name, rows] of Object.entries(batches)) {
      const counts = rows.map(() => 2);
      await parkScanBatch(`claimed-${name}-${user.workspaceId}`, rows, counts);
      written[name] = await writeOldestParkedBatch();
    }
    expect(written).toEqual({
      bots: { taken: true, written: 10 },
      closed: { taken: true, written: 10 },
      missing: { taken: true, written: 0 },
    });
    const [total] = await db().$queryRaw<{ scans: bigint; bots: bigint }[]>`
      SELECT sum(scans)::bigint AS scans, sum(bots)::bigint AS bots FROM scan_rollups
      WHERE link_id = ${link} AND dimension = 0 AND grain = ${DAY}`;
    // The closed day's scans went to their day themselves (the bots' day is not closed).
    expect(total).toEqual({ scans: 10n, bots: 0n });
    expect(await rawScans([link])).toBe(20);
  });
});
