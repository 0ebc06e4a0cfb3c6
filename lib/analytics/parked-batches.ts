import type { ScanBatch } from "./scan-queue";

/** What writing the oldest parked batch did: none was parked, or one was taken and `written` of its scans counted anew. */
export type ParkedWrite = { taken: false } | { taken: true; written: number };

/** What a parking notice says: that parking began, or that every parked scan is written. */
export type ParkingState = "parking" | "caught up";

/**
 * Where a writer behind the door puts batches it has no time to write yet: somewhere durable and
 * fast to append to, from which they are written later, each exactly once.
 */
export type Overflow<Event> = {
  /**
   * Parks a batch, giving up by `deadline` (epoch ms) when one is given, inside the database too:
   * a parking that has not answered by then must never land later. Absent where parking is not
   * wanted (the scans go to a durable stream); parked batches are still written.
   */
  park?: (batch: ScanBatch<Event>, deadline?: number) => Promise<void>;
  /** Writes the oldest parked batch (any process's), if any, and says how many of its scans were counted anew. */
  writeParked(): Promise<ParkedWrite>;
  /** Tells the operator that parking began, or that every parked scan is written. */
  notice(message: string, state: ParkingState): void;
};

/** How long a process waits before writing parked batches again after a write of one failed. */
export const PARKED_RETRY_MS = 5000;

/** How often a process looks for batches parked by others (or by a process before it) while it has parked none. */
export const PARKED_CHECK_INTERVAL_MS = 30_000;

/**
 * The parked-batch poller of one buffer: writes parked batches oldest first when asked, looks
 * again at once after this buffer parked one, every PARKED_CHECK_INTERVAL_MS otherwise (another
 * process may have parked some), and PARKED_RETRY_MS after a failed write (logged once a spell).
 * It tells the operator once that parking began and once that every parked scan is written.
 */
export class ParkedBatchPoller<Event> {
  /** When this buffer first parked a batch since the last time nothing was parked. */
  private parkingSince: number | null = null;
  /** When to look for parked batches again. */
  private nextCheck = 0;
  /** Writing a parked batch failed, and none has been written since. */
  private failing = false;

  constructor(
    private readonly overflow: Overflow<Event>,
    private readonly log: (message: string, error?: unknown) => void,
  ) {}

  /** A batch was parked (`waiting` events still wait): there is something to write, unless writing parked batches waits out a failure. */
  parked(waiting: number): void {
    if (!this.failing) this.nextCheck = 0;
    if (this.parkingSince !== null) return;
    this.parkingSince = Date.now();
    this.overflow.notice(
      `The scan writer is behind the visits (${waiting} scans waiting); parking batches in the ` +
        "database to write them as it catches up. No scan is dropped.",
      "parking",
    );
  }

  /**
   * Writes parked batches, oldest first, while `more()` holds and one is due, telling `counted` the
   * scans each counted anew. Stops at the first failure (tried again PARKED_RETRY_MS later) and
   * when none is left (looked for again PARKED_CHECK_INTERVAL_MS later).
   */
  async writeWhile(more: () => boolean, counted: (scans: number) => void): Promise<void> {
    if (Date.now() < this.nextCheck) return;
    while (more()) {
      let parked: ParkedWrite;
      try {
        parked = await this.overflow.writeParked();
      } catch (error) {
        if (!this.failing)
          this.log(`Writing parked scans failed; they stay parked and are retried every ${PARKED_RETRY_MS / 1000} s.`, error);
        this.failing = true;
        this.nextCheck = Date.now() + PARKED_RETRY_MS;
        return;
      }
      this.failing = false;
      if (!parked.taken) {
        if (this.parkingSince !== null)
          this.overflow.notice(
            `The scan writer has caught up: every scan parked since ${new Date(this.parkingSince).toISOString()} is written.`,
            "caught up",
          );
        this.parkingSince = null;
        this.nextCheck = Date.now() + PARKED_CHECK_INTERVAL_MS;
        return;
      }
      counted(parked.written);
    }
  }
}
