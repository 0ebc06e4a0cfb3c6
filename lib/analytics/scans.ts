import { clock } from "@/lib/clock";
import { config } from "@/lib/config";
import { processSingleton } from "@/lib/process-singleton";
import { countryLookup } from "./countries";
import { enrichScan } from "./enrich";
import { ScanBuffer, type ScanBatch } from "./scan-buffer";
import { pruneScanData, writeScanBatch } from "./store";
import type { CapturedScan } from "./types";

const FLUSH_INTERVAL_MS = 1000;
/** Each instance prunes at most this often; the deletes are idempotent, so several instances may. */
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

/** Parsing, country lookup and hashing happen here, in the flush, never on the redirect path. */
async function writeCaptured(batch: ScanBatch<CapturedScan>): Promise<void> {
  const countryOf = await countryLookup();
  await writeScanBatch(batch.id, batch.events.map((scan) => enrichScan(scan, countryOf)));
}

const processBuffer = processSingleton("scanBuffer", () => {
  const buffer = new ScanBuffer<CapturedScan>(writeCaptured, (message, error) => console.error(message, error ?? ""));
  let lastPrune = 0;
  buffer.startTimer(FLUSH_INTERVAL_MS, () => {
    const now = clock().now();
    if (now - lastPrune < PRUNE_INTERVAL_MS) return;
    lastPrune = now;
    pruneScanData(config().SCAN_RETENTION_DAYS, now).catch((error) => console.error("Pruning old scan events failed:", error instanceof Error ? error.message : error));
  });
  return buffer;
});

/** The process's one scan buffer, shared by both doors (they may be separate bundles). */
export function scanBuffer(): ScanBuffer<CapturedScan> {
  return processBuffer.get();
}
