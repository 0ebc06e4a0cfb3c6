import { clock, DAY_MS } from "@/lib/clock";
import { isRecordId } from "@/lib/db/random";
import { MAX_RULES } from "@/lib/links/routing";
import { z } from "zod";
import { DEVICE_CLASSES, KNOWN_BROWSERS, KNOWN_SYSTEMS, OTHER_AGENT } from "./agents";
import { isCountryCode } from "./countries";
import { HOST_NAME, MAX_USER_AGENT_LENGTH, type ScanRow } from "./enrich";

/**
 * Enriched scans travelling outside the process that captured them (the NATS stream's messages, the
 * batches a writer behind the door parks in scan_inbox): rows with the visitor's hash, never an
 * address, under the id the writer claims, so the same message is counted once however often it is
 * delivered. `counts[i]` is how many identical scans `rows[i]` stands for.
 */
export type ScanMessage = { id: string; rows: ScanRow[]; counts: number[] };

type WireRow = Omit<ScanRow, "occurredAt"> & { occurredAt: number };

/**
 * A message's rows at most: twice the buffer's batch (5,000 rows, parked whole), ten times the
 * stream's messages (500 rows).
 */
const MAX_ROWS = 10_000;
/**
 * Identical scans one row may stand for: the buffer folds a visitor's requests of one millisecond
 * into one row, a handful in practice, so this bound is far above any real fold.
 */
export const MAX_SCANS_PER_ROW = 10_000;
/** No scan predates the service; none is dated more than a day ahead of this process's clock (a clock a little fast). */
const EARLIEST_SCAN = Date.UTC(2020, 0, 1);
const LATEST_AHEAD_MS = DAY_MS;

/** The ids a batch is written under: a UUID, with `.<n>` for a stream message's part (anything else a test names). */
const BATCH_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
/** The host the visit named, as the door reads it: a lower-case name (punycode) or an address. */
const REQUEST_HOST = /^(?:[a-z0-9._-]{1,253}|\[[0-9a-f:.]{2,45}\])$/;
const VISITOR_HASH = /^[0-9a-f]{32}$/;

const agentName = (names: ReadonlySet<string>, what: string) =>
  z
    .string()
    .refine((name) => names.has(name) || name === OTHER_AGENT, `is not a ${what} the door names`)
    .nullable();

const wireRow = z.object({
  linkId: z.string().refine(isRecordId, "is not a link id"),
  host: z.string().regex(REQUEST_HOST, "is not a host name"),
  occurredAt: z
    .number()
    .int()
    .min(EARLIEST_SCAN, "is before any scan")
    .refine((instant) => instant <= clock().now() + LATEST_AHEAD_MS, "is in the future"),
  userAgent: z.string().max(MAX_USER_AGENT_LENGTH).nullable(),
  referrerHost: z.string().regex(HOST_NAME, "is not a host name").nullable(),
  country: z.string().refine(isCountryCode, "is not a country code").nullable(),
  viaQr: z.boolean(),
  device: z
    .string()
    .refine((device) => DEVICE_CLASSES.has(device), "is not a device class")
    .nullable(),
  browser: agentName(KNOWN_BROWSERS, "browser"),
  os: agentName(KNOWN_SYSTEMS, "system"),
  bot: z.boolean(),
  visitor: z.string().regex(VISITOR_HASH, "is not a visitor hash").nullable(),
  // Absent in messages written before routing rules existed.
  servedRule: z
    .number()
    .int()
    .min(0)
    .max(MAX_RULES - 1)
    .nullable()
    .optional(),
});

const wireMessage = z
  .object({
    id: z.string().regex(BATCH_ID, "is not a batch id"),
    rows: z.array(wireRow).min(1).max(MAX_ROWS),
    counts: z.array(z.number().int().min(1).max(MAX_SCANS_PER_ROW)).max(MAX_ROWS),
  })
  .refine((message) => message.counts.length === message.rows.length, {
    message: "must give one count a row",
    path: ["counts"],
  });

/** A message that is not a scan batch this service wrote: malformed, out of range or forged. */
export class InvalidScanMessage extends Error {}

export function scanMessageText(message: ScanMessage): string {
  const rows: WireRow[] = message.rows.map((row) => ({ ...row, occurredAt: row.occurredAt.getTime() }));
  return JSON.stringify({ id: message.id, rows, counts: message.counts });
}

/** The message, once every field is one the door could have written; InvalidScanMessage names the first that is not. */
export function scanMessageFromText(text: string): ScanMessage {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new InvalidScanMessage("not JSON");
  }
  const parsed = wireMessage.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InvalidScanMessage(`${issue.path.join(".") || "the message"} ${issue.message}`);
  }
  return {
    id: parsed.data.id,
    rows: parsed.data.rows.map((row) => ({ ...row, occurredAt: new Date(row.occurredAt) })),
    counts: parsed.data.counts,
  };
}
