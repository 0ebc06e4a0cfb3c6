import { log } from "@/lib/log";
import { processSingleton } from "@/lib/process-singleton";
import { addPreviewCounts } from "./store";

/** Crawler visits are written together, at most this long after the first of a batch. */
const FLUSH_AFTER_MS = 1000;

type Counts = { waiting: Map<string, number>; timer: NodeJS.Timeout | null; flushing: Promise<void> | null };

const counts = processSingleton<Counts>("resolutionPreviewCounts", () => ({ waiting: new Map(), timer: null, flushing: null }));

/**
 * One preview shown to a link-preview crawler: added to the link's preview_count (never a scan)
 * within a second, with every other shown meanwhile, in one statement. A count that cannot be
 * written is logged and dropped: a preview count is a tally, not a record of visits.
 */
export function countPreview(linkId: string): void {
  const state = counts.get();
  state.waiting.set(linkId, (state.waiting.get(linkId) ?? 0) + 1);
  if (state.timer === null) {
    state.timer = setTimeout(() => void flushPreviewCounts(), FLUSH_AFTER_MS);
    state.timer.unref();
  }
}

/** Writes the counts waiting now (proxy.ts awaits it before a serverless instance may freeze). */
export function flushPreviewCounts(): Promise<void> {
  const state = counts.get();
  if (state.timer !== null) clearTimeout(state.timer);
  state.timer = null;
  const batch = state.waiting;
  if (batch.size === 0) return state.flushing ?? Promise.resolve();
  state.waiting = new Map();
  const flushing = addPreviewCounts(batch)
    .catch((error) => log().error({ err: error, links: batch.size }, "Writing link preview counts failed; they were dropped."))
    .finally(() => {
      if (state.flushing === flushing) state.flushing = null;
    });
  state.flushing = flushing;
  return flushing;
}
