import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { ScanRow } from "@/lib/analytics/enrich";
import { ScanBuffer, ShardedScanBuffer } from "@/lib/analytics/scan-buffer";
import { writeScanBatch } from "@/lib/analytics/store";
import { db } from "@/lib/db/client";
import { createLink } from "../support/analytics";
import { newUser } from "../support/api";

/**
 * The scan writer as the process runs it (lib/analytics/scans.ts): scans split by link over two
 * buffers, each writing its batches with the real batch statement.
 */

function scan(linkId: string, index: number): ScanRow {
  return {
    linkId,
    host: "s.test.example",
    occurredAt: new Date(Date.UTC(2026, 10, 26, 10) + index * 1000),
    userAgent: "Mozilla/5.0",
    referrerHost: null,
    country: "AU",
    viaQr: false,
    device: "mobile",
    browser: null,
    os: null,
    bot: false,
    visitor: (index % 50).toString(16).padStart(32, "0"),
  };
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
