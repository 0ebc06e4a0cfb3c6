import type { Interval } from "./plans";

export type Cycle = { start: Date; end: Date };

const MONTHS_PER: Record<Interval, number> = { month: 1, year: 12 };

/**
 * The billing cycle that contains `now`, counted in whole intervals from the subscription's
 * anchor (its current period start). Cycles keep rolling without any event from the provider,
 * so a capped plan's count resets on time even when a renewal webhook is late. As Stripe does,
 * an anchor on the 31st falls on the last day of shorter months and returns to the 31st after.
 */
export function cycleContaining(anchor: Date, interval: Interval, now: Date): Cycle {
  const step = MONTHS_PER[interval];
  let cycles = Math.max(0, Math.floor(wholeMonthsBetween(anchor, now) / step));
  while (cycles > 0 && addMonths(anchor, cycles * step) > now) cycles--;
  while (addMonths(anchor, (cycles + 1) * step) <= now) cycles++;
  return { start: addMonths(anchor, cycles * step), end: addMonths(anchor, (cycles + 1) * step) };
}

/** The end of one interval that starts at `start`. */
export function intervalEnd(start: Date, interval: Interval): Date {
  return addMonths(start, MONTHS_PER[interval]);
}

export function addMonths(date: Date, months: number): Date {
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth() + months;
  const day = Math.min(date.getUTCDate(), daysInMonth(year, month));
  return new Date(
    Date.UTC(year, month, day, date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds(), date.getUTCMilliseconds()),
  );
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

function wholeMonthsBetween(from: Date, to: Date): number {
  return (to.getUTCFullYear() - from.getUTCFullYear()) * 12 + (to.getUTCMonth() - from.getUTCMonth());
}
