/**
 * Whether link lookups are failing (the database refuses or hangs), from the lookups' own outcomes.
 * While they fail, a visit with a stale cached copy is served that copy at once instead of waiting
 * up to the lookup deadline first (a hung database would cost every such visit 2 s, a few dozen
 * visits a second instead of thousands), and the copy is re-read in the background, a few at a time,
 * which also tells when the database answers again.
 */
export class DatabaseTrouble {
  private failingSince: number | null = null;
  private readonly refreshing = new Set<string>();

  constructor(
    /** Background re-reads at once: each may wait the whole deadline on a hung database. */
    private readonly maxRefreshes = 4,
  ) {}

  failing(): boolean {
    return this.failingSince !== null;
  }

  /** Records a failed lookup; true when it starts a spell of failures (worth one log line). */
  failed(now: number): boolean {
    if (this.failingSince !== null) return false;
    this.failingSince = now;
    return true;
  }

  /** Records a lookup the database answered, which ends a spell of failures. */
  answered(): void {
    this.failingSince = null;
  }

  /** Runs `refresh` for `key` in the background unless one is already running for it, or too many are. */
  refreshInBackground(key: string, refresh: () => Promise<void>): void {
    if (this.refreshing.has(key) || this.refreshing.size >= this.maxRefreshes) return;
    this.refreshing.add(key);
    void refresh().finally(() => this.refreshing.delete(key));
  }
}
