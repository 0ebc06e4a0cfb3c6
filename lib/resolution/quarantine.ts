import { QUARANTINE } from "./types";

/**
 * What entering quarantine writes, wherever a link enters it (creation, repoint, an operator's
 * decision): release is earned again from scratch, and the seven days count from now.
 */
export function quarantineEntry(now: Date) {
  return { status: QUARANTINE, cleanChecks: 0, lastCountedCheckAt: null, quarantinedAt: now };
}

