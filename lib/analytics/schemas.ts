import { DomainError } from "@/lib/http/errors";
import { storedText } from "@/lib/http/schemas";
import { z } from "zod";

export const GROUP_BY = ["day", "hour", "country", "device", "browser", "os", "referrer", "source", "served", "link"] as const;
export type GroupBy = (typeof GROUP_BY)[number];

export const ANALYTICS_FORMATS = ["json", "csv"] as const;

/** The breakdowns a request may be narrowed to one value of: each is a column of a link's combination rows. */
export const FILTERS = ["country", "device", "browser", "os", "referrer", "source"] as const;
export type FilterDimension = (typeof FILTERS)[number];
export type AnalyticsFilter = { dimension: FilterDimension; value: string };

/**
 * The breakdowns a visitor (an address and browser) has one value of in a day: their rows' uniques are
 * distinct visitors. A visitor may come through several referrers, or both QR and link.
 */
export const ONE_PER_VISITOR: readonly string[] = ["country", "device", "browser", "os"];

const DEVICE_CLASSES = ["desktop", "mobile", "tablet", "tv", "unknown"] as const;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(Z|[+-](\d{2}):(\d{2}))?$/;

/** A calendar date that exists (no 2026-02-30) and, for a time, hours, minutes and offset in range. */
export function isIsoDateOrTime(value: string): boolean {
  const match = DATE.exec(value) ?? DATE_TIME.exec(value);
  if (!match) return false;
  const [, year, month, day, hour = "0", minute = "0", second = "0", , offsetHours = "0", offsetMinutes = "0"] = match;
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  const realDate =
    date.getUTCFullYear() === Number(year) && date.getUTCMonth() === Number(month) - 1 && date.getUTCDate() === Number(day);
  return (
    realDate &&
    Number(year) >= 2000 &&
    Number(hour) < 24 &&
    Number(minute) < 60 &&
    Number(second) < 60 &&
    Number(offsetHours) <= 14 &&
    Number(offsetMinutes) < 60
  );
}

/** A date alone: the whole day in the request's time zone. */
export function isDateOnly(value: string): boolean {
  return DATE.test(value);
}

const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

/** An IANA zone name the runtime knows (offsets such as +05:30 are not names). */
export function isTimeZoneName(value: string): boolean {
  if (!IANA_NAME.test(value) || value.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

const instant = (what: string) =>
  z
    .string()
    .refine(
      isIsoDateOrTime,
      "must be an ISO 8601 date (2026-01-31) or time (2026-01-31T09:30, with Z or an offset for an absolute time)",
    )
    .optional()
    .meta({ description: what, example: "2026-01-01" });

/** The query of `GET /api/analytics`. */
export const analyticsQuery = z.strictObject({
  link_id: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .meta({ description: "one link of this workspace; without it, the whole workspace" }),
  group_by: z
    .enum(GROUP_BY, { error: `must be one of ${GROUP_BY.join(", ")}` })
    .default("day")
    .meta({
      description:
        "what each row counts: a day or hour in the time zone, or a country, device class, browser, OS, " +
        "referring host, source (qr or link), served (which destination: a routing rule's or the link's " +
        "own) or link",
    }),
  start: instant("first day (or instant) counted; a date means its midnight in the time zone; default: 30 days before end"),
  end: instant(
    "last day counted (a date includes the whole day), or the instant counting stops before; default: the end of today in the time zone",
  ),
  timezone: z.string().default("UTC").refine(isTimeZoneName, "must be an IANA time zone name such as Australia/Adelaide").meta({
    description: "IANA time zone that cuts days and hours (half-hour and quarter-hour offsets included)",
    example: "Australia/Adelaide",
  }),
  format: z
    .enum(ANALYTICS_FORMATS, { error: "must be json or csv" })
    .default("json")
    .meta({ description: "json (default) or csv: the same rows as text/csv" }),
  country: z
    .string()
    .regex(/^([A-Z]{2}|unknown)$/, "must be an ISO 3166 country code in capitals (AU) or unknown")
    .optional()
    .meta({ description: "count only scans from this country (a key of group_by=country)", example: "AU" }),
  device: z
    .enum(DEVICE_CLASSES, { error: `must be one of ${DEVICE_CLASSES.join(", ")}` })
    .optional()
    .meta({ description: "count only scans from this device class" }),
  browser: storedText(z.string().min(1).max(64))
    .optional()
    .meta({ description: "count only scans from this browser (a key of group_by=browser)", example: "Chrome" }),
  os: storedText(z.string().min(1).max(64))
    .optional()
    .meta({ description: "count only scans from this operating system (a key of group_by=os)", example: "iOS" }),
  referrer: storedText(z.string().min(1).max(253))
    .optional()
    .meta({ description: "count only scans referred by this host, or direct (a key of group_by=referrer)", example: "direct" }),
  source: z
    .enum(["qr", "link"], { error: "must be qr or link" })
    .optional()
    .meta({ description: "count only scans through the QR code (qr) or the plain link (link)" }),
});

export type AnalyticsQuery = z.infer<typeof analyticsQuery>;

/** The query's filter, if it names one; more than one is refused. */
export function filterOf(query: Pick<AnalyticsQuery, FilterDimension>): AnalyticsFilter | null {
  const named = FILTERS.filter((name) => query[name] !== undefined);
  if (named.length > 1)
    throw new DomainError(
      "invalid_request",
      `The query string names ${named.length} filters (${named.join(", ")}): filter by one of ${FILTERS.join(", ")} at a time.`,
    );
  const [dimension] = named;
  return dimension ? { dimension, value: query[dimension]! } : null;
}

const count = z.number().int().min(0);

export const analyticsRowSchema = z
  .object({
    key: z.string().meta({
      description:
        "day: YYYY-MM-DD; hour: the local hour with its offset (2026-01-31T09:00:00+10:30); country: ISO " +
        "3166 code or unknown; device: desktop, mobile, tablet, tv or unknown; browser and os: their " +
        "names or unknown; referrer: the referring host or direct; source: qr or link; served: rule:N " +
        "(the link's rule at index N, from 0, as it was when the scan was made) or default (the link's " +
        "own destination); link: the link's id",
    }),
    scans: count,
    uniques: count.meta({
      description:
        "visitors counted once per link (per workspace without link_id) per UTC day, where the visitor's " +
        "first scan of that day fell. A visitor is an address and browser, so for day (in UTC), link, " +
        "country, device, browser and os each row's uniques are exactly its distinct visitors per UTC " +
        "day; for referrer, source, served and hour a visitor's later scans in other rows are not " +
        "counted again there, so those rows' uniques are not distinct visitors (the dashboard leaves " +
        "them out). Within a filter the totals, days and hours and the filter's own breakdown count as " +
        "that breakdown's row does; the other breakdowns count each link's visitors and add them up " +
        "over the links (a visitor of two links counts in both). A link's uniques are exact; the " +
        "workspace's may count a visitor twice on a day when their scans of two of its links were " +
        "recorded at the same moment",
    }),
  })
  .meta({ id: "AnalyticsRow" });

export const analyticsSchema = z
  .object({
    group_by: z.enum(GROUP_BY),
    start: z.string().meta({
      description: "first instant counted, in the time zone (ISO 8601 with offset); times are rounded down to the quarter hour",
    }),
    end: z.string().meta({ description: "instant counting stopped before, in the time zone; rounded up to the quarter hour" }),
    timezone: z.string(),
    total: z
      .object({
        scans: count,
        uniques: count,
        bots: count.meta({
          description:
            "bots, link-preview fetchers and HEAD requests: redirected, never counted as scans; not broken down, so 0 within a filter",
        }),
      })
      .meta({ id: "AnalyticsTotal" }),
    data: z.array(analyticsRowSchema).meta({
      description: "day and hour: in time order, every bucket present (zeros included); the others: by scans, most first",
    }),
  })
  .meta({ id: "Analytics" });

export type AnalyticsRow = z.infer<typeof analyticsRowSchema>;
export type AnalyticsReport = z.infer<typeof analyticsSchema>;

export const scanRetentionRunSchema = z
  .object({
    retention_days: z.number().int().meta({ description: "SCAN_RETENTION_DAYS: how long raw scan events are kept" }),
    deleted_before: z.string().meta({ description: "raw events that occurred before this instant were deleted (ISO 8601, UTC)" }),
    events_deleted: z
      .number()
      .int()
      .min(0)
      .meta({
        description:
          "raw rows this run deleted, not scans: a row stands for one scan or for a run of identical scans " +
          "(same visitor, link and millisecond); their counts stay in the rollups",
      }),
  })
  .meta({ id: "ScanRetentionRun" });

export type ScanRetentionRun = z.infer<typeof scanRetentionRunSchema>;
