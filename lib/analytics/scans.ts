import { db } from "@/lib/db/client";
import { ScanBuffer, type ScanEvent } from "./scan-buffer";
import { log } from "@/lib/log";

const FLUSH_INTERVAL_MS = 1000;
const MAX_TEXT = 512;

const BUFFER_KEY = Symbol.for("permalink.scanBuffer");
const holder = globalThis as unknown as { [BUFFER_KEY]?: ScanBuffer };

/** One statement per batch: column arrays unnested into rows, so a batch costs one round trip. */
async function writeScans(events: ScanEvent[]): Promise<void> {
  const column = <T>(pick: (event: ScanEvent) => T) => events.map(pick);
  await db().$executeRaw`
    INSERT INTO scan_events (link_id, host, occurred_at, user_agent, referrer, country, via_qr)
    SELECT * FROM unnest(
      ${column((event) => event.linkId)}::text[], ${column((event) => event.host)}::text[],
      ${column((event) => new Date(event.occurredAt))}::timestamptz[], ${column((event) => event.userAgent)}::text[],
      ${column((event) => event.referrer)}::text[], ${column((event) => event.country)}::text[],
      ${column((event) => event.viaQr)}::boolean[])`;
}

/** The process's one scan buffer, shared by both doors (they may be separate bundles). */
export function scanBuffer(): ScanBuffer {
  if (!holder[BUFFER_KEY]) {
    holder[BUFFER_KEY] = new ScanBuffer(writeScans, (message, error) => log().error({ err: error }, message));
    holder[BUFFER_KEY].startTimer(FLUSH_INTERVAL_MS);
  }
  return holder[BUFFER_KEY];
}

export function clip(text: string | null): string | null {
  return text === null ? null : text.slice(0, MAX_TEXT);
}
