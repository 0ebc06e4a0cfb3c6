import { processSingleton } from "./process-singleton";

/** Where every rule that depends on time gets "now", so tests can move time without waiting. */
export type Clock = { now(): number };

const systemClock: Clock = { now: () => Date.now() };

const processClock = processSingleton<Clock>("clock", () => systemClock);

export function clock(): Clock {
  return processClock.get();
}

/** Tests only: replace the process clock (shared by every bundle of the app in this process); undefined restores the system's. */
export function setClock(replacement: Clock | undefined): void {
  if (replacement) processClock.set(replacement);
  else processClock.reset();
}

/** A UTC day's length: every UTC day has it (UTC has no daylight saving). */
export const DAY_MS = 86_400_000;

/** The first instant of the UTC day holding `instant` (epoch milliseconds). */
export function utcDayStart(instant: number): number {
  return Math.floor(instant / DAY_MS) * DAY_MS;
}
