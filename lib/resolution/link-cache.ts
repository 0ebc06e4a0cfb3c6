import { LRUCache } from "lru-cache";
import type { ResolvedLink } from "./types";

type Entry = { link: ResolvedLink | null; freshUntil: number };

const MAX_ENTRIES = 100_000;
/** A drop forgotten this far back reads as the oldest possible, so a lookup older than it is not cached: the safe side. */
const MAX_DROPS_REMEMBERED = 10_000;

export function cacheKey(host: string | null, slug: string): string {
  return `${host ?? ""}/${slug}`;
}

/**
 * The group of keys a change to one drops together (ADR 0010): every typed form PostgreSQL's
 * lower() folds to the same code must share it. Coarser is safe (a change drops a few more
 * entries, re-read at once), finer is not, so each character is lower-cased on its own (no
 * context: lower() has none, as for a final sigma) and marks are dropped (the one full mapping
 * that adds one, İ to i̇). A plain ASCII key is lower-cased only.
 */
export function foldedKey(key: string): string {
  const lowered = key.toLowerCase();
  if (/^[\u0000-\u007f]*$/.test(key)) return lowered;
  return Array.from(key, (character) => character.toLowerCase())
    .join("")
    .normalize("NFD")
    .replace(/\p{M}/gu, "");
}

/**
 * Resolved links (and misses) per host and slug. Entries are fresh for `ttlMs`; a stale entry
 * is still served when the database cannot be reached, so cached links keep resolving.
 */
export class LinkCache {
  private readonly entries = new LRUCache<string, Entry>({ max: MAX_ENTRIES });
  /** When each recently dropped key was dropped, and when everything was, on one counter (see `dropStamp`). */
  private readonly drops = new LRUCache<string, number>({ max: MAX_DROPS_REMEMBERED });
  /**
   * Keys cached for a code typed in another case than its link's (ADR 0010), misses included, by
   * the folded key: a change to any code that folds the same drops them all.
   */
  private readonly folded = new LRUCache<string, Set<string>>({ max: MAX_ENTRIES });
  private dropCount = 0;
  private clearedAt = 0;

  constructor(private readonly ttlMs: number) {}

  /** The fresh entry, `undefined` when absent or stale. `null` means a cached miss. */
  fresh(key: string, now: number): ResolvedLink | null | undefined {
    const entry = this.entries.get(key);
    return entry && entry.freshUntil > now ? entry.link : undefined;
  }

  /** Any entry, however old: the fallback when the database is down. */
  stale(key: string): ResolvedLink | null | undefined {
    return this.entries.get(key)?.link;
  }

  set(key: string, link: ResolvedLink | null, now: number): void {
    this.entries.set(key, { link, freshUntil: now + this.ttlMs });
    // Cold path only: what a lookup found (or did not) under a key other than its link's own.
    if (link === null || cacheKey(link.host, link.slug) !== key) {
      const group = foldedKey(key);
      const typed = this.folded.get(group);
      if (typed) typed.add(key);
      else this.folded.set(group, new Set([key]));
    }
  }

  /** Updates a cached link in place (after a counted check), keeping its freshness. */
  update(key: string, link: ResolvedLink): void {
    const entry = this.entries.get(key);
    if (entry) entry.link = link;
  }

  delete(key: string): void {
    this.entries.delete(key);
    this.drops.set(key, ++this.dropCount);
    const group = foldedKey(key);
    const typed = this.folded.get(group);
    if (!typed) return;
    this.folded.delete(group);
    for (const other of typed) {
      this.entries.delete(other);
      this.drops.set(other, ++this.dropCount);
    }
  }

  clear(): void {
    this.entries.clear();
    this.folded.clear();
    this.clearedAt = ++this.dropCount;
  }

  /**
   * The last drop of `key` (or of everything): taken before a lookup and handed to `setUnlessDropped`
   * after it, so a lookup that was under way when the link changed cannot put back the copy the
   * change replaced.
   */
  dropStamp(key: string): number {
    return Math.max(this.clearedAt, this.drops.get(key) ?? 0);
  }

  /** `set`, unless the key was dropped since `stamp` was taken (a change came in meanwhile). */
  setUnlessDropped(key: string, link: ResolvedLink | null, now: number, stamp: number): void {
    if (this.dropStamp(key) === stamp) this.set(key, link, now);
  }
}
