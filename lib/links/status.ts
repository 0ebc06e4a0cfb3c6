import { z } from "zod";

/**
 * A link's status, stored as a small integer: active links redirect; quarantined links redirect
 * after a live safety check each time, until released; links in abuse show a warning page.
 */
export type LinkStatus = 0 | 1 | 2;

export const ACTIVE = 0 satisfies LinkStatus;
export const QUARANTINE = 1 satisfies LinkStatus;
export const ABUSE = 2 satisfies LinkStatus;

/** Each status by its name: the links list's `?status=` filter and the CSV export's status column. */
export const STATUS_NAMES = { [ACTIVE]: "active", [QUARANTINE]: "quarantine", [ABUSE]: "abuse" } as const satisfies Record<
  LinkStatus,
  string
>;

export const linkStatusField = z
  .union([z.literal(ACTIVE), z.literal(QUARANTINE), z.literal(ABUSE)])
  .meta({ description: "0 active, 1 quarantine, 2 abuse" });

/** The status column as read from the database, where it is a plain integer. */
export function asLinkStatus(stored: number): LinkStatus {
  if (stored === ACTIVE || stored === QUARANTINE || stored === ABUSE) return stored;
  throw new Error(`A link has status ${stored}, which no code path writes.`);
}

/**
 * What entering quarantine writes, wherever a link enters it (creation, repoint, an operator's
 * decision): release is earned again from scratch, and the seven days count from now.
 */
export function quarantineEntry(now: Date) {
  return { status: QUARANTINE, cleanChecks: 0, lastCountedCheckAt: null, quarantinedAt: now };
}
