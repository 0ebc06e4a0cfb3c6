/** The cookie the viewer's browser keeps its IANA time zone in (set by ViewerTimeZone). */
export const TIME_ZONE_COOKIE = "tz";

/** The presets of the date range picker, cut in the viewer's time zone. */
export const PRESETS = [
  { id: "24h", label: "24 hours" },
  { id: "7d", label: "7 days" },
  { id: "30d", label: "30 days" },
  { id: "90d", label: "90 days" },
  { id: "1y", label: "A year" },
  { id: "custom", label: "Custom" },
] as const;

export type PresetId = (typeof PRESETS)[number]["id"];

export type Range = { preset: PresetId; start: string; end: string; groupBy: "hour" | "day" };

const DAYS: Record<Exclude<PresetId, "24h" | "custom">, number> = { "7d": 7, "30d": 30, "90d": 90, "1y": 365 };
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The range the analytics API is asked for: the last 24 hours by the hour, else whole days ending today in `timeZone`. */
export function rangeFor(
  preset: string | undefined,
  custom: { start?: string; end?: string },
  timeZone: string,
  now: Date,
): Range {
  if (preset === "24h")
    return { preset, start: new Date(now.getTime() - 24 * 3600_000).toISOString(), end: now.toISOString(), groupBy: "hour" };
  const today = dateIn(now, timeZone);
  if (preset === "custom" && custom.start && custom.end && DATE.test(custom.start) && DATE.test(custom.end)) {
    return { preset, start: custom.start, end: custom.end, groupBy: "day" };
  }
  // Own keys only: `in` also finds what every object inherits (?range=toString made the page fail).
  const known = preset && Object.hasOwn(DAYS, preset) ? (preset as keyof typeof DAYS) : "30d";
  return { preset: known, start: addDays(today, 1 - DAYS[known]), end: today, groupBy: "day" };
}

/** The calendar date (YYYY-MM-DD) it is at `instant` in `timeZone`. */
export function dateIn(instant: Date, timeZone: string): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(instant);
}

function addDays(date: string, days: number): string {
  const moved = new Date(`${date}T00:00:00Z`);
  moved.setUTCDate(moved.getUTCDate() + days);
  return moved.toISOString().slice(0, 10);
}
