import { log } from "@/lib/log";
import { processSingleton } from "@/lib/process-singleton";
import { countryLookup } from "./countries";
import { enrichScan } from "./enrich";
import { ScanBuffer, type ScanBatch } from "./scan-buffer";
import { writeScanBatch } from "./store";
import type { CapturedScan } from "./types";

const FLUSH_INTERVAL_MS = 1000;

/** Parsing, country lookup and hashing happen here, in the flush, never on the redirect path. */
async function writeCaptured(batch: ScanBatch<CapturedScan>): Promise<void> {
  const countryOf = await countryLookup();
  await writeScanBatch(batch.id, batch.events.map((scan) => enrichScan(scan, countryOf)));
}

const processBuffer = processSingleton("scanBuffer", () => {
  const buffer = new ScanBuffer<CapturedScan>(writeCaptured, (message, error) => log().error({ err: error }, message));
  buffer.startTimer(FLUSH_INTERVAL_MS);
  return buffer;
});

/** The process's one scan buffer, shared by both doors (they may be separate bundles). */
export function scanBuffer(): ScanBuffer<CapturedScan> {
  return processBuffer.get();
}
