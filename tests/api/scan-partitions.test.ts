import type { ScanRow } from "@/lib/analytics/enrich";
import { applyScanRetention } from "@/lib/analytics/service";
import { writeScanBatch } from "@/lib/analytics/store/append";
import { MONTH } from "@/lib/analytics/store/rollups";
import { setClock } from "@/lib/clock";
import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { afterEach, describe, expect, it } from "vitest";
import { createLink, report } from "../support/analytics";
import { call, newUser } from "../support/api";

// Raw scan events are partitioned by UTC day (prisma/migrations/20261127100000_scan_events_partitioned):
// the retention job creates days ahead and drops whole days past the cutoff. The tests run in order on
// this file's database, on days far from the template's own (its first partition ends the day after
// it was migrated), so each sees the partitions the one before it left.

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const CRON_SECRET = "cron-secret-for-the-partitions";
const MARCH_10 = Date.UTC(2031, 2, 10);

afterEach(() => {
  setClock(undefined);
  delete process.env.CRON_SECRET;
  delete process.env.SCAN_RETENTION_DAYS;
  resetConfig();
});

function at(now: number) {
  setClock({ now: () => now });
}

/** A scan of the link at each instant, one visitor per instant; every fifth a bot. */
function scansAt(linkId: string, instants: number[]): ScanRow[] {
  return instants.map((time, index) => ({
    linkId,
    host: "s.test.example",
    occurredAt: new Date(time),
    userAgent: index % 5 === 4 ? "Googlebot/2.1" : "Mozilla/5.0",
    referrerHost: null,
    country: index % 2 ? "AU" : "NZ",
    viaQr: index % 3 === 0,
    device: "mobile",
    browser: null,
    os: null,
    bot: index % 5 === 4,
    visitor: index % 5 === 4 ? null : index.toString(16).padStart(32, "0"),
  }));
}

/** scan_events' partitions by name (pg_inherits), with the bound PostgreSQL keeps for each. */
async function partitions(): Promise<Record<string, string>> {
  const rows = await db().$queryRaw<{ name: string; bound: string }[]>`
    SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'scan_events'::regclass ORDER BY c.relname`;
  return Object.fromEntries(rows.map((row) => [row.name, row.bound]));
}

/** Every table whose name starts scan_events, attached or not (pg_class). */
async function scanTables(): Promise<string[]> {
  const rows = await db().$queryRaw<{ name: string }[]>`
    SELECT relname AS name FROM pg_class
    WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p') AND relname LIKE 'scan_events%' ORDER BY relname`;
  return rows.map((row) => row.name);
}

/** Each raw row of the link: its time and the partition holding it. */
async function rowsOf(linkId: string): Promise<{ at: number; partition: string; scans: number }[]> {
  const rows = await db().$queryRaw<{ at: number; partition: string; scans: number }[]>`
    SELECT extract(epoch FROM occurred_at)::float8 * 1000 AS at, tableoid::regclass::text AS partition, scans
    FROM scan_events WHERE link_id = ${linkId} ORDER BY occurred_at, id`;
  return rows;
}

function dayNames(from: number, days: number): string[] {
  return Array.from(
    { length: days },
    (_, index) => `scan_events_p${new Date(from + index * DAY_MS).toISOString().slice(0, 10).replaceAll("-", "")}`,
  );
}

/** The link's month rollups (ranges of centuries are beyond GET /api/analytics). */
async function monthTotals(linkId: string): Promise<Record<string, number>> {
  const rows = await db().$queryRaw<{ month: string; scans: bigint }[]>`
    SELECT to_char(bucket AT TIME ZONE 'UTC', 'YYYY-MM') AS month, scans FROM scan_rollups
    WHERE link_id = ${linkId} AND grain = ${MONTH} AND dimension = 0 ORDER BY bucket`;
  return Object.fromEntries(rows.map((row) => [row.month, Number(row.scans)]));
}

describe("scan_events partitioned by UTC day", () => {
  it("is partitioned by range of occurred_at, keyed by (occurred_at, id), with a default partition", async () => {
    const [table] = await db().$queryRaw<{ kind: string; key: string; primary_key: string }[]>`
      SELECT c.relkind::text AS kind, pg_get_partkeydef(c.oid) AS key,
        (SELECT pg_get_constraintdef(k.oid) FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'p') AS primary_key
      FROM pg_class c WHERE c.oid = 'scan_events'::regclass`;
    expect(table).toEqual({ kind: "p", key: "RANGE (occurred_at)", primary_key: "PRIMARY KEY (occurred_at, id)" });
    const bounds = await partitions();
    expect(bounds.scan_events_default).toBe("DEFAULT");
    expect(Object.values(bounds).filter((bound) => bound.startsWith("FOR VALUES FROM (MINVALUE)"))).toHaveLength(1);
  });

  it("writes a scan whose day has no partition, however far off, and moves it into its day once the job creates it", async () => {
    const user = await newUser("partition-far");
    const linkId = await createLink(user, "https://example.com/far");
    const instants = [Date.UTC(1971, 0, 1), MARCH_10 + 3 * DAY_MS + 5 * HOUR_MS, Date.UTC(2199, 11, 31, 23, 59)];
    await writeScanBatch("partition-far", scansAt(linkId, instants));

    const written = await rowsOf(linkId);
    expect(written.map((row) => row.at)).toEqual(instants);
    // 1971 is before the first partition's end: that partition has no lower bound (MINVALUE).
    expect(written[0]!.partition).toMatch(/^scan_events_before_\d{8}$/);
    expect(written.slice(1).map((row) => row.partition)).toEqual(["scan_events_default", "scan_events_default"]);
    // Days after the template's own are summed into their day and month rows once closed (closeScanDays).
    expect(await monthTotals(linkId)).toEqual({ "1971-01": 1 });

    // A century of retention keeps 1971 (and the first partition holding it) for the next test.
    process.env.SCAN_RETENTION_DAYS = "36500";
    resetConfig();
    at(MARCH_10 + 9 * HOUR_MS);
    await applyScanRetention();

    expect(Object.keys(await partitions())).toEqual(expect.arrayContaining(dayNames(MARCH_10, 8)));
    expect(await partitions()).not.toHaveProperty("scan_events_p20310318");
    expect((await partitions()).scan_events_p20310310).toBe(
      "FOR VALUES FROM ('2031-03-10 00:00:00+00') TO ('2031-03-11 00:00:00+00')",
    );
    const moved = await rowsOf(linkId);
    expect(moved.map((row) => [row.at, row.partition])).toEqual([
      [instants[0], written[0]!.partition],
      [instants[1], "scan_events_p20310313"],
      [instants[2], "scan_events_default"],
    ]);
    // 13 March has not ended yet on 10 March.
    expect(await monthTotals(linkId)).toEqual({ "1971-01": 1 });

    const again = await partitions();
    await applyScanRetention();
    expect(await partitions()).toEqual(again);
  });

  it("drops whole days past the cutoff and deletes older rows of the day across it, leaving what deleting row by row leaves", async () => {
    process.env.CRON_SECRET = CRON_SECRET;
    process.env.SCAN_RETENTION_DAYS = "3";
    resetConfig();
    const user = await newUser("partition-retention");
    const linkId = await createLink(user, "https://example.com/partitioned");
    // Every seventh hour over the week of partitions, one scan far back (the first partition) and one
    // in May (default partition).
    const week = Array.from({ length: 24 }, (_, index) => MARCH_10 + index * 7 * HOUR_MS + 1234);
    const instants = [Date.UTC(2001, 5, 1), ...week, Date.UTC(2031, 4, 1)];
    await writeScanBatch(
      "partition-retention",
      scansAt(linkId, instants),
      instants.map((_, index) => 1 + (index % 3)),
    );
    const views = () =>
      Promise.all([
        report(user, {
          link_id: linkId,
          start: "2031-03-01",
          end: "2031-05-31",
          group_by: "day",
          timezone: "Australia/Adelaide",
        }),
        report(user, { link_id: linkId, start: "2001-05-01", end: "2001-07-01" }),
        report(user, { start: "2031-03-01", end: "2031-03-31", group_by: "country", timezone: "Asia/Kathmandu" }),
        report(user, { link_id: linkId, start: "2031-03-12T05:00:00Z", end: "2031-03-14T05:00:00Z", group_by: "hour" }),
      ]);
    const before = await views();
    const firstPartition = Object.keys(await partitions()).find((name) => name.startsWith("scan_events_before_"))!;
    expect(firstPartition).toBeDefined();

    const now = MARCH_10 + 6 * DAY_MS + 6 * HOUR_MS;
    const cutoff = now - 3 * DAY_MS;
    const [older] = await db().$queryRaw<{ rows: bigint }[]>`
      SELECT count(*) AS rows FROM scan_events WHERE occurred_at < ${new Date(cutoff).toISOString()}::timestamptz`;
    at(now);
    const run = await call("GET", "/api/cron/scan-retention", { token: CRON_SECRET });

    expect(run.status).toBe(200);
    expect(run.body).toEqual({
      retention_days: 3,
      deleted_before: new Date(cutoff).toISOString(),
      events_deleted: Number(older!.rows),
    });
    const after = await partitions();
    // 10, 11 and 12 March lie wholly before the cutoff (13 March 06:00), and so does the first partition.
    for (const gone of [firstPartition, ...dayNames(MARCH_10, 3)]) expect(after).not.toHaveProperty(gone);
    expect(Object.keys(after)).toEqual(["scan_events_default", ...dayNames(MARCH_10 + 3 * DAY_MS, 11)]);
    expect((await scanTables()).filter((name) => name.endsWith("_expired"))).toEqual([]);
    expect((await rowsOf(linkId)).map((row) => row.at)).toEqual(instants.filter((instant) => instant >= cutoff));
    expect(await views()).toEqual(before);

    const again = await call("GET", "/api/cron/scan-retention", { token: CRON_SECRET });
    expect(again.body.events_deleted).toBe(0);
  });

  it("lets two instances run the job at once while batches are written: both succeed, and each row leaves once", async () => {
    process.env.SCAN_RETENTION_DAYS = "3";
    resetConfig();
    const user = await newUser("partition-race");
    const linkId = await createLink(user, "https://example.com/raced");
    const now = Date.UTC(2031, 3, 1, 2);
    const cutoff = now - 3 * DAY_MS;
    // Rows of March's partitions, all past the cutoff by the race, and new rows of days that have no
    // partition yet while it runs.
    await writeScanBatch(
      "race-old",
      scansAt(
        linkId,
        Array.from({ length: 40 }, (_, index) => MARCH_10 + 3 * DAY_MS + index * HOUR_MS),
      ),
    );
    const [older] = await db().$queryRaw<{ rows: bigint }[]>`
      SELECT count(*) AS rows FROM scan_events WHERE occurred_at < ${new Date(cutoff).toISOString()}::timestamptz`;
    const fresh = Array.from({ length: 6 }, (_, batch) =>
      scansAt(
        linkId,
        Array.from({ length: 30 }, (_, index) => now + batch * DAY_MS + index * 60_000),
      ),
    );
    at(now);

    const [runs] = await Promise.all([
      Promise.all([applyScanRetention(), applyScanRetention(), applyScanRetention()]),
      ...fresh.map((rows, index) => writeScanBatch(`race-fresh-${index}`, rows)),
    ]);

    expect(runs.reduce((sum, run) => sum + run.events_deleted, 0)).toBe(Number(older!.rows));
    const kept = await rowsOf(linkId);
    expect(kept).toHaveLength(fresh.flat().length);
    expect(
      kept.every((row) => row.partition === `scan_events_p${new Date(row.at).toISOString().slice(0, 10).replaceAll("-", "")}`),
    ).toBe(true);
    // March's days are all past the cutoff; the eight days from 1 April were created by one of the runs.
    expect(Object.keys(await partitions())).toEqual(["scan_events_default", ...dayNames(now - 2 * HOUR_MS, 8)]);
    expect((await scanTables()).filter((name) => name.endsWith("_expired"))).toEqual([]);
    const total = await report(user, { link_id: linkId, start: "2031-03-01", end: "2031-04-30" });
    expect(total.total.scans + total.total.bots).toBe(40 + fresh.flat().length);
  });
});
