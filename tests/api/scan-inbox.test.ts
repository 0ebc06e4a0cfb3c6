import type { ScanRow } from "@/lib/analytics/enrich";
import { scanMessageText } from "@/lib/analytics/scan-message";
import { parkScansWhenBehind, scanBuffer } from "@/lib/analytics/scans";
import { parkedScans, parkScanBatch, writeOldestParkedBatch, writeScanBatch } from "@/lib/analytics/store/append";
import { pruneScanData } from "@/lib/analytics/store/partitions";
import { DAY } from "@/lib/analytics/store/rollups";
import type { CapturedScan } from "@/lib/analytics/types";
import { db } from "@/lib/db/client";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import { call, newUser } from "../support/api";

/**
 * A writer behind the door parks batches in scan_inbox (lib/analytics/store/append.ts) and writes them
 * later: what it writes then must be exactly what writing them at once would have written.
 */

async function newLink(label: string): Promise<string> {
  const user = await newUser(label);
  const response = await call("POST", "/api/links", { token: user.token, body: { destination: `https://example.com/${label}` } });
  expect(response.status).toBe(201);
  return response.body.id;
}

/** Scans over two days and a few countries, from returning and new visitors, one in eight a bot. */
function scansFor(linkId: string, count: number): ScanRow[] {
  return Array.from({ length: count }, (_, index) => {
    const bot = index % 8 === 0;
    return {
      linkId,
      host: "s.test.example",
      occurredAt: new Date(Date.UTC(2026, 10, 24, 22) + index * 97_000),
      userAgent: bot ? "Googlebot/2.1" : "Mozilla/5.0",
      referrerHost: index % 3 === 0 ? "news.example" : null,
      country: ["AU", "NZ", null][index % 3]!,
      viaQr: index % 2 === 0,
      device: bot ? null : "mobile",
      browser: bot ? null : "Safari",
      os: bot ? null : "iOS",
      bot,
      visitor: bot ? null : (index % 11).toString(16).padStart(32, "0"),
      servedRule: index % 5 === 0 ? 0 : null,
    };
  });
}

/** Everything the writer wrote for a link, without its id: raw rows, its rollups and its breakdown rows. */
async function writtenFor(linkId: string) {
  const raw = await db().$queryRaw<object[]>`
    SELECT occurred_at, country, via_qr, bot, link_unique, workspace_unique, scans, served_rule
    FROM scan_events WHERE link_id = ${linkId} ORDER BY occurred_at`;
  const rollups = await db().$queryRaw<object[]>`
    SELECT grain, dimension, bucket, value, scans, uniques, bots
    FROM scan_rollups WHERE link_id = ${linkId} ORDER BY grain, dimension, bucket, value`;
  const breakdowns = await db().$queryRaw<object[]>`
    SELECT grain, bucket, country, device, browser, os, referrer, source, scans, uniques
    FROM scan_link_breakdowns WHERE link_id = ${linkId} ORDER BY 1, 2, 3, 4, 5, 6, 7, 8`;
  return { raw, rollups, breakdowns };
}

async function writeEveryParkedBatch(): Promise<number> {
  let written = 0;
  for (let parked = await writeOldestParkedBatch(); parked.taken; parked = await writeOldestParkedBatch())
    written += parked.written;
  return written;
}

describe("scan batches parked in the database", () => {
  it("writes a parked batch exactly as the same batch written at once: raw rows, rollups, breakdowns and uniques", async () => {
    const [direct, parked] = [await newLink("direct"), await newLink("parked")];
    const counts = Array.from({ length: 300 }, (_, index) => (index % 7 === 0 ? 3 : 1));
    await writeScanBatch(randomUUID(), scansFor(direct, 300), counts);

    await parkScanBatch(randomUUID(), scansFor(parked, 300), counts);
    expect(await parkedScans()).toBe(counts.reduce((total, count) => total + count, 0));
    expect((await writtenFor(parked)).raw).toEqual([]);
    expect(await writeEveryParkedBatch()).toBe(counts.reduce((total, count) => total + count, 0));

    expect(await parkedScans()).toBe(0);
    const [fromDirect, fromParked] = [await writtenFor(direct), await writtenFor(parked)];
    expect(fromParked.raw).toHaveLength(300);
    expect(fromParked).toEqual(fromDirect);
  });

  it("keeps one row for a batch parked twice, and adds nothing for a parked batch whose id was written before", async () => {
    const link = await newLink("once");
    const batchId = randomUUID();
    await parkScanBatch(batchId, scansFor(link, 10), Array(10).fill(1));
    await parkScanBatch(batchId, scansFor(link, 10), Array(10).fill(1));
    expect(await parkedScans()).toBe(10);
    await writeEveryParkedBatch();
    const once = await writtenFor(link);

    const writtenThenParked = randomUUID();
    await writeScanBatch(writtenThenParked, scansFor(link, 10));
    const afterDirect = await writtenFor(link);
    await parkScanBatch(writtenThenParked, scansFor(link, 10), Array(10).fill(1));
    await writeEveryParkedBatch();

    expect(once.raw).toHaveLength(10);
    expect(afterDirect.raw).toHaveLength(20);
    expect(await writtenFor(link)).toEqual(afterDirect);
    expect(await parkedScans()).toBe(0);
  });

  it("takes a parked batch that was written before it was parked, and counts none of its scans again", async () => {
    const link = await newLink("written-then-parked");
    const batchId = randomUUID();
    // Its commit's answer was lost: the buffer kept the batch and parked it later.
    await writeScanBatch(batchId, scansFor(link, 20), Array(20).fill(1));
    await parkScanBatch(batchId, scansFor(link, 20), Array(20).fill(1));

    expect(await writeOldestParkedBatch()).toEqual({ taken: true, written: 0 });
    expect((await writtenFor(link)).raw).toHaveLength(20);
    expect(await parkedScans()).toBe(0);
  });

  it("does not let a parked batch that cannot be written hold back the batches parked after it", async () => {
    const link = await newLink("behind-poison");
    // A batch this release cannot read (parked by another release, say): its write fails every time.
    await db().$executeRaw`
      INSERT INTO scan_inbox (batch_id, first_scan_at, scans, body, parked_at)
      VALUES ('unreadable', now(), 5, '{"id":"unreadable","rows":[]}', now() - interval '1 minute')`;
    await parkScanBatch(randomUUID(), scansFor(link, 10), Array(10).fill(1));
    try {
      const attempts = [];
      for (let attempt = 0; attempt < 3; attempt++) attempts.push(await writeOldestParkedBatch().catch(() => "failed"));

      expect(attempts).toContainEqual({ taken: true, written: 10 });
      expect((await writtenFor(link)).raw).toHaveLength(10);
      expect(await parkedScans(), "the unreadable batch stays parked").toBe(5);
    } finally {
      await db().$executeRaw`DELETE FROM scan_inbox WHERE batch_id = 'unreadable'`;
    }
  });

  it("counts nothing of a parked batch with a forged row, and lets the batches parked after it through", async () => {
    const link = await newLink("forged-parked");
    const [row] = JSON.parse(scanMessageText({ id: "forged", rows: scansFor(link, 1), counts: [1] })).rows;
    const forged = JSON.stringify({ id: "forged", rows: [{ ...row, country: "KP" }], counts: [500_000_000] });
    await db().$executeRaw`
      INSERT INTO scan_inbox (batch_id, first_scan_at, scans, body, parked_at)
      VALUES ('forged', now(), 500000000, ${forged}, now() - interval '1 minute')`;
    await parkScanBatch(randomUUID(), scansFor(link, 10), Array(10).fill(1));
    try {
      for (let attempt = 0; attempt < 3; attempt++) await writeOldestParkedBatch().catch(() => "refused");

      const { raw } = await writtenFor(link);
      expect(raw).toHaveLength(10);
      expect(raw.every((scan) => (scan as { scans: number }).scans === 1)).toBe(true);
      expect(await parkedScans(), "the forged batch stays parked, unwritten").toBe(500_000_000);
    } finally {
      await db().$executeRaw`DELETE FROM scan_inbox WHERE batch_id = 'forged'`;
    }
  });

  it("keeps the visitor sets a parked batch needs, however long it waited: a visitor still counts once a day", async () => {
    const link = await newLink("retention");
    const day = Date.UTC(2026, 10, 20);
    const visit = (hour: number) => ({ ...scansFor(link, 2)[1]!, occurredAt: new Date(day + hour * 3_600_000) });
    await parkScanBatch(randomUUID(), [visit(9)], [1]);
    await writeScanBatch(randomUUID(), [visit(10)]);

    await pruneScanData(90, day + 3 * 86_400_000);
    expect(await writeEveryParkedBatch()).toBe(1);

    const [total] = await db().$queryRaw<{ scans: bigint; uniques: bigint }[]>`
      SELECT scans, uniques FROM scan_rollups WHERE link_id = ${link} AND grain = ${DAY} AND dimension = 0`;
    expect(total).toEqual({ scans: 2n, uniques: 1n });
  });

  it("records every scan of a backlog many batches deep through the process's buffer, parking instead of dropping", async () => {
    const link = await newLink("backlog");
    parkScansWhenBehind();
    const buffer = scanBuffer();
    const before = buffer.stats();
    // More than the buffer holds (100,000), arriving over time as visits do.
    const visits = 120_000;
    const start = Date.UTC(2026, 10, 25, 9);
    for (let index = 0; index < visits; index++) {
      buffer.record(capturedVisit(link, start + index, index));
      if (index % 1000 === 0) await sleep(20);
    }
    await buffer.flush();

    await vi.waitFor(async () => expect(await rawScans(link)).toBe(visits), { timeout: 120_000, interval: 500 });
    const after = buffer.stats();
    expect(after.dropped - before.dropped).toBe(0);
    expect(after.parked - before.parked).toBeGreaterThan(0);
    expect(await parkedScans()).toBe(0);
  }, 180_000);
});

function capturedVisit(linkId: string, occurredAt: number, index: number): CapturedScan {
  return {
    linkId,
    host: "s.test.example",
    occurredAt,
    method: "GET",
    viaQr: false,
    servedRule: null,
    userAgent:
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 Version/18.0 Mobile/15E148 Safari/604.1",
    referrer: null,
    edgeCountry: null,
    forwardedFor: null,
    peerAddress: `198.51.${Math.floor(index / 250) % 250}.${index % 250}`,
    realIp: null,
  };
}

async function rawScans(linkId: string): Promise<number> {
  const [row] = await db().$queryRaw<
    { scans: bigint | null }[]
  >`SELECT sum(scans) AS scans FROM scan_events WHERE link_id = ${linkId}`;
  return Number(row?.scans ?? 0);
}
