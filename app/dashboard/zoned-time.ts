/**
 * An instant as a datetime-local field shows it in a time zone, and back: the dashboard's times
 * are entered and shown where the viewer lives (the zone the browser reports, viewerZone) and
 * stored in UTC. Browser-safe, and the same on the server and in the browser (numbers only, no
 * locale's words), so a page drawn on the server is the page the browser hydrates.
 */

const DAY_MS = 86_400_000;

function partsFormat(zone: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat("en-CA", {
    timeZone: zone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  });
}

/** The wall clock at `at` in `zone`: year, month (1–12), day, hour, minute, second. */
function wallClock(at: number, zone: string): number[] {
  const parts = Object.fromEntries(
    partsFormat(zone)
      .formatToParts(at)
      .map((part) => [part.type, part.value]),
  );
  return ["year", "month", "day", "hour", "minute", "second"].map((name) => Number(parts[name]));
}

/** datetime-local's value (YYYY-MM-DDTHH:mm) for the instant `at` in `zone`. */
export function zonedInputValue(at: number, zone: string): string {
  const [year, month, day, hour, minute] = wallClock(at, zone).map((value) => String(value).padStart(2, "0"));
  return `${year}-${month}-${day}T${hour}:${minute}`;
}

/** How far `zone`'s wall clock is ahead of UTC at `at`, in ms. */
function offsetAt(at: number, zone: string): number {
  const [year, month, day, hour, minute, second] = wallClock(at, zone) as [number, number, number, number, number, number];
  return Date.UTC(year, month - 1, day, hour, minute, second) - (at - (((at % 1000) + 1000) % 1000));
}

/**
 * The instant a datetime-local value names in `zone`, or NaN when it is no such value. A time the
 * clocks skip (a spring-forward gap) is the instant an hour later on the clock; one they pass twice, the first.
 */
export function instantOfZoned(value: string, zone: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(value);
  if (!match) return Number.NaN;
  const [year, month, day, hour, minute] = match.slice(1).map(Number) as [number, number, number, number, number];
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  if (Number.isNaN(wall)) return Number.NaN;
  // The zone's offsets a day either side: a change of clocks lies between them, never two.
  const before = offsetAt(wall - DAY_MS, zone);
  const after = offsetAt(wall + DAY_MS, zone);
  const candidates = [wall - before, wall - after].filter((at) => zonedInputValue(at, zone) === value);
  // Shown twice: the first. Never shown (skipped): the offset before the change, an hour later on the clock.
  return candidates.length > 0 ? Math.min(...candidates) : wall - before;
}
