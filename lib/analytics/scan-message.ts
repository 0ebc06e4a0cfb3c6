import type { ScanRow } from "./enrich";

/**
 * Enriched scans travelling outside the process that captured them (the NATS stream's messages, the
 * batches a writer behind the door parks in scan_inbox): rows with the visitor's hash, never an
 * address, under the id the writer claims, so the same message is counted once however often it is
 * delivered. `counts[i]` is how many identical scans `rows[i]` stands for.
 */
export type ScanMessage = { id: string; rows: ScanRow[]; counts: number[] };

type WireRow = Omit<ScanRow, "occurredAt"> & { occurredAt: number };

export function scanMessageText(message: ScanMessage): string {
  const rows: WireRow[] = message.rows.map((row) => ({ ...row, occurredAt: row.occurredAt.getTime() }));
  return JSON.stringify({ id: message.id, rows, counts: message.counts });
}

export function scanMessageFromText(text: string): ScanMessage {
  const parsed = JSON.parse(text) as { id: string; rows: WireRow[]; counts: number[] };
  if (typeof parsed.id !== "string" || !Array.isArray(parsed.rows) || parsed.rows.length !== parsed.counts?.length)
    throw new Error("not a scan message");
  return {
    id: parsed.id,
    rows: parsed.rows.map((row) => ({ ...row, occurredAt: new Date(row.occurredAt) })),
    counts: parsed.counts,
  };
}
