import { type Invalidation, onInvalidation } from "@/lib/links/invalidation";
import { afterEach, beforeEach } from "vitest";

/** The invalidations this process heard during the current test, in order; a test may empty `heard`. */
export function heardInvalidations(): { heard: Invalidation[] } {
  const listened = { heard: [] as Invalidation[] };
  let stopListening: () => void = () => undefined;
  beforeEach(() => {
    listened.heard = [];
    stopListening = onInvalidation((invalidation) => listened.heard.push(invalidation));
  });
  afterEach(() => stopListening());
  return listened;
}
