import { db } from "@/lib/db/client";
import { ScanBuffer, type ScanEvent } from "./scan-buffer";

const FLUSH_INTERVAL_MS = 1000;
const MAX_TEXT = 512;

const BUFFER_KEY = Symbol.for("permalink.scanBuffer");
const holder = globalThis as unknown as { [BUFFER_KEY]?: ScanBuffer };

async function writeScans(events: ScanEvent[]): Promise<void> {
  await db().scanEvent.createMany({
    data: events.map((event) => ({ ...event, occurredAt: new Date(event.occurredAt) })),
  });
}

/** The process's one scan buffer, shared by both doors (they may be separate bundles). */
export function scanBuffer(): ScanBuffer {
  if (!holder[BUFFER_KEY]) {
    holder[BUFFER_KEY] = new ScanBuffer(writeScans, (message, error) => console.error(message, error));
    holder[BUFFER_KEY].startTimer(FLUSH_INTERVAL_MS);
  }
  return holder[BUFFER_KEY];
}

export function clip(text: string | null): string | null {
  return text === null ? null : text.slice(0, MAX_TEXT);
}
