import { scanWriterConnections } from "@/lib/db/pool";
import { log } from "@/lib/log";
import { natsConfigured } from "@/lib/nats/connection";
import { processSingleton } from "@/lib/process-singleton";
import { setImmediate as nextTurn } from "node:timers/promises";
import { countryLookup } from "./countries";
import { enrichScan, type ScanRow } from "./enrich";
import { ScanBuffer, ShardedScanBuffer } from "./scan-buffer";
import type { ScanBatch } from "./scan-queue";
import { recordScanRows } from "./scan-stream";
import { parkScanBatch, writeOldestParkedBatch, writeScanBatch } from "./store/append";
import type { CapturedScan } from "./types";

const FLUSH_INTERVAL_MS = 1000;
/**
 * With NATS a flush is a publish (about a millisecond), not a transaction: done five times as often,
 * it bounds what a killed process loses to the scans of its last 200 ms.
 */
const STREAM_FLUSH_INTERVAL_MS = 200;

/**
 * Scans enriched between two turns of the event loop: visits wait while a slice is enriched. In a
 * profile of the cold miss, slices of 500 distinct visitors were among its longest busy stretches.
 */
const ENRICH_SLICE = 100;

/** Parsing, country lookup and hashing happen here, in the flush, never on the redirect path. */
async function enriched(batch: ScanBatch<CapturedScan>): Promise<ScanRow[]> {
  const countryOf = await countryLookup();
  const rows: ScanRow[] = [];
  for (let from = 0; from < batch.events.length; from += ENRICH_SLICE) {
    if (from > 0) await nextTurn();
    for (const scan of batch.events.slice(from, from + ENRICH_SLICE)) rows.push(enrichScan(scan, countryOf));
  }
  return rows;
}

async function writeCaptured(batch: ScanBatch<CapturedScan>): Promise<void> {
  const rows = await enriched(batch);
  if (natsConfigured()) await recordScanRows(batch.id, rows, batch.counts);
  else await writeScanBatch(batch.id, rows, batch.counts);
}

/**
 * A long-lived server's scan writer: without NATS, when it falls behind the door it parks batches in
 * PostgreSQL (scan_inbox) and writes them as it catches up. With NATS the stream takes the backlog
 * (publishing does not fall behind), and the writer only writes what was parked before NATS was
 * configured. A serverless instance (proxy.ts on Vercel) is not given this: it may freeze as soon as
 * its visits' scans are written, so it neither parks nor writes parked batches.
 */
export function parkScansWhenBehind(): void {
  scanBuffer().useOverflow({
    park: natsConfigured()
      ? undefined
      : async (batch, deadline) => parkScanBatch(batch.id, await enriched(batch), batch.counts, deadline),
    writeParked: writeOldestParkedBatch,
    notice: (message) => log().warn(message),
  });
}

/**
 * The same scan again: every captured fact equal, to the millisecond (one visitor's requests
 * arriving together). The buffer then counts it on the waiting event instead of adding one.
 */
export function sameScan(last: CapturedScan, next: CapturedScan): boolean {
  return (
    last.occurredAt === next.occurredAt &&
    last.linkId === next.linkId &&
    last.host === next.host &&
    last.method === next.method &&
    last.viaQr === next.viaQr &&
    last.userAgent === next.userAgent &&
    last.referrer === next.referrer &&
    last.edgeCountry === next.edgeCountry &&
    last.forwardedFor === next.forwardedFor &&
    last.peerAddress === next.peerAddress &&
    last.realIp === next.realIp &&
    last.servedRule === next.servedRule
  );
}

const processBuffer = processSingleton("scanBuffer", () => {
  const buffer = new ShardedScanBuffer<CapturedScan>(
    scanWriterConnections(),
    (scan) => scan.linkId,
    (limits, drops) =>
      new ScanBuffer<CapturedScan>(
        writeCaptured,
        (message, error) => log().error({ err: error }, message),
        limits,
        sameScan,
        undefined,
        drops,
      ),
  );
  buffer.startTimer(natsConfigured() ? STREAM_FLUSH_INTERVAL_MS : FLUSH_INTERVAL_MS);
  return buffer;
});

/** The process's one scan buffer, shared by both doors (they may be separate bundles). */
export function scanBuffer(): ShardedScanBuffer<CapturedScan> {
  return processBuffer.get();
}
