import { FramedTable } from "@/components/table";
import { buttonClass, cardClass, errorClass, inputClass, labelClass, mutedClass } from "@/components/ui/styles";
import { analyticsQuery, type AnalyticsReport } from "@/lib/analytics/schemas";
import { scanAnalytics } from "@/lib/analytics/service";
import { validate } from "@/lib/http/body";
import { DomainError } from "@/lib/http/errors";
import { PRESETS, rangeFor } from "./range";
import { ScansChart } from "./scans-chart";

export const BREAKDOWNS = [
  { groupBy: "source", title: "QR code or link", column: "Source" },
  { groupBy: "country", title: "Countries", column: "Country" },
  { groupBy: "device", title: "Devices", column: "Device" },
  { groupBy: "browser", title: "Browsers", column: "Browser" },
  { groupBy: "referrer", title: "Referrers", column: "Referrer" },
] as const;

type Breakdown = (typeof BREAKDOWNS)[number];
type Principal = Parameters<typeof scanAnalytics>[0];
/** What is counted: a range (dates, or instants for hours) in a time zone, for one link or the whole workspace. */
export type ScanScope = { start: string; end: string; timezone: string; link_id?: string };

/** The analytics page: the date range picker and the CSV download over the reports of one link (link_id) or the whole workspace. */
export function AnalyticsView({
  principal,
  search,
  zone,
}: {
  principal: Principal;
  search: Record<string, string>;
  zone: string;
}) {
  const range = rangeFor(search.range, { start: search.start, end: search.end }, zone, new Date());
  const scope: ScanScope = {
    start: range.start,
    end: range.end,
    timezone: zone,
    ...(search.link_id && { link_id: search.link_id }),
  };
  const csv = new URLSearchParams({ ...scope, group_by: range.groupBy, format: "csv" });
  return (
    <>
      <form method="get" className="flex flex-wrap items-end gap-3" aria-label="Date range">
        {scope.link_id && <input type="hidden" name="link_id" value={scope.link_id} />}
        <fieldset className="m-0 flex flex-wrap gap-1 border-0 p-0">
          <legend className={labelClass + " mb-1"}>Range (time zone {zone})</legend>
          {PRESETS.filter((preset) => preset.id !== "custom").map((preset) => (
            <button
              key={preset.id}
              type="submit"
              name="range"
              value={preset.id}
              aria-pressed={range.preset === preset.id}
              className={range.preset === preset.id ? buttonClass.primary : buttonClass.secondary}
            >
              {preset.label}
            </button>
          ))}
        </fieldset>
        <div>
          <label htmlFor="range-start" className={labelClass}>
            From
          </label>
          <input
            id="range-start"
            name="start"
            type="date"
            defaultValue={range.groupBy === "day" ? range.start : undefined}
            className={inputClass}
          />
        </div>
        <div>
          <label htmlFor="range-end" className={labelClass}>
            To
          </label>
          <input
            id="range-end"
            name="end"
            type="date"
            defaultValue={range.groupBy === "day" ? range.end : undefined}
            className={inputClass}
          />
        </div>
        <button type="submit" name="range" value="custom" className={buttonClass.secondary}>
          Show custom range
        </button>
        <a href={`/dashboard/analytics/csv?${csv}`} className={buttonClass.secondary + " no-underline"} download>
          Download CSV
        </a>
      </form>
      <ScanReports principal={principal} scope={scope} series={range.groupBy} breakdowns={BREAKDOWNS} level={2} />
    </>
  );
}

/**
 * Scans over time (totals and the chart) and one table per breakdown, each from the analytics
 * capability's own query with the API's validation, as GET /api/analytics answers them; the API's
 * sentence instead when it refuses (a range that is empty or too long, a link of another workspace).
 * Used by the analytics page and a link's own page.
 */
export async function ScanReports(props: {
  principal: Principal;
  scope: ScanScope;
  series: "day" | "hour";
  breakdowns: readonly Breakdown[];
  level: 2 | 3;
}) {
  const { principal, scope, series, breakdowns, level } = props;
  let reports: AnalyticsReport[];
  try {
    reports = await Promise.all(
      [series, ...breakdowns.map((breakdown) => breakdown.groupBy)].map((groupBy) =>
        scanAnalytics(principal, validate(analyticsQuery, { ...scope, group_by: groupBy }, "query")),
      ),
    );
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return (
      <p role="alert" className={errorClass}>
        {error.message}
      </p>
    );
  }
  const [totals, ...tables] = reports as [AnalyticsReport, ...AnalyticsReport[]];
  const Heading = level === 2 ? "h2" : "h3";
  return (
    <>
      <section aria-label="Scans over time" className={cardClass}>
        <Heading className="mt-0 text-lg">Scans over time</Heading>
        <p className="m-0" data-testid="analytics-totals">
          <strong>{totals.total.scans}</strong> scans, <strong>{totals.total.uniques}</strong> unique visitors
          <span className={mutedClass}> · {totals.total.bots} bot and preview visits not counted</span>
        </p>
        <ScansChart rows={totals.data} groupBy={series} />
      </section>

      <div className="grid gap-4 md:grid-cols-2">
        {breakdowns.map((breakdown, index) => (
          <section key={breakdown.groupBy} className={cardClass} aria-label={breakdown.title}>
            <Heading className="mt-0 text-lg">{breakdown.title}</Heading>
            <BreakdownTable column={breakdown.column} report={tables[index]!} />
          </section>
        ))}
      </div>
    </>
  );
}

function BreakdownTable({ column, report }: { column: string; report: AnalyticsReport }) {
  if (report.data.length === 0) return <p className={mutedClass}>No scans in this range.</p>;
  const most = Math.max(1, ...report.data.map((row) => row.scans));
  return (
    <FramedTable headings={[column, { label: "Scans", numeric: true }, { label: "Uniques", numeric: true }]}>
      {report.data.slice(0, 10).map((row) => (
        <tr key={row.key}>
          <td>
            <div className="flex flex-col gap-1">
              <span className="break-all">{row.key}</span>
              <span
                aria-hidden="true"
                className="block h-1.5 rounded bg-accent"
                style={{ width: `${(row.scans / most) * 100}%` }}
              />
            </div>
          </td>
          <td className="text-right tabular-nums">{row.scans}</td>
          <td className="text-right tabular-nums">{row.uniques}</td>
        </tr>
      ))}
    </FramedTable>
  );
}
