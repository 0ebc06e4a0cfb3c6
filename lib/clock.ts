/** Where every rule that depends on time gets "now", so tests can move time without waiting. */
export type Clock = { now(): number };

const systemClock: Clock = { now: () => Date.now() };

const CLOCK_KEY = Symbol.for("permalink.clock");
const holder = globalThis as unknown as { [CLOCK_KEY]?: Clock };

export function clock(): Clock {
  return holder[CLOCK_KEY] ?? systemClock;
}

/** Tests only: replace the process clock (shared by every bundle of the app in this process). */
export function setClock(replacement: Clock | undefined): void {
  holder[CLOCK_KEY] = replacement;
}
