import { buttonClass, cardClass, errorClass, inputClass, labelClass, mutedClass } from "@/components/ui/styles";
import { analyticsQuery, type AnalyticsReport } from "@/lib/analytics/schemas";
import { scanAnalytics } from "@/lib/analytics/service";
import { validate } from "@/lib/http/body";
import { DomainError } from "@/lib/http/errors";
import { PRESETS, rangeFor } from "./range";
import { ScansChart } from "./scans-chart";

const BREAKDOWNS = [
  { groupBy: "source", title: "QR code or link" },
  { groupBy: "country", title: "Countries" },
  { groupBy: "device", title: "Devices" },
  { groupBy: "browser", title: "Browsers" },
  { groupBy: "referrer", title: "Referrers" },
] as const;

/** The charts and tables of one link (link_id) or the whole workspace; used by the analytics page and a link's page. */
export async function AnalyticsView({ principal, search, zone }: { principal: Parameters<typeof scanAnalytics>[0]; search: Record<string, string>; zone: string }) {
  const range = rangeFor(search.range, { start: search.start, end: search.end }, zone, new Date());
  const base = { start: range.start, end: range.end, timezone: zone, ...(search.link_id && { link_id: search.link_id }) };
  let reports: AnalyticsReport[];
  try {
    reports = await Promise.all(
      [range.groupBy, ...BREAKDOWNS.map((breakdown) => breakdown.groupBy)].map((groupBy) => scanAnalytics(principal, validate(analyticsQuery, { ...base, group_by: groupBy }, "query"))),
    );
  } catch (error) {
    // The API's own sentence: a range that is empty or too long, a link of another workspace.
    if (!(error instanceof DomainError)) throw error;
    return (
      <p role="alert" className={errorClass}>
        {error.message}
      </p>
    );
  }
  const [series, ...breakdowns] = reports as [AnalyticsReport, ...AnalyticsReport[]];
  const csv = new URLSearchParams({ ...base, group_by: range.groupBy, format: "csv" });
  return (
    <>
      <form method="get" className="flex flex-wrap items-end gap-3" aria-label="Date range">
        {search.link_id && <input type="hidden" name="link_id" value={search.link_id} />}
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
          <input id="range-start" name="start" type="date" defaultValue={range.groupBy === "day" ? range.start : undefined} className={inputClass} />
        </div>
        <div>
          <label htmlFor="range-end" className={labelClass}>
            To
          </label>
          <input id="range-end" name="end" type="date" defaultValue={range.groupBy === "day" ? range.end : undefined} className={inputClass} />
        </div>
        <button type="submit" name="range" value="custom" className={buttonClass.secondary}>
          Show custom range
        </button>
        <a href={`/dashboard/analytics/csv?${csv}`} className={buttonClass.secondary + " no-underline"} download>
          Download CSV
        </a>
      </form>

      <section aria-labelledby="totals-heading" className={cardClass}>
        <h2 id="totals-heading" className="mt-0 text-lg">
          Scans over time
        </h2>
        <p className="m-0" data-testid="analytics-totals">
          <strong>{series.total.scans}</strong> scans, <strong>{series.total.uniques}</strong> unique visitors
          <span className={mutedClass}> · {series.total.bots} bot and preview visits not counted</span>
        </p>
        <ScansChart rows={series.data} groupBy={range.groupBy} />
      </section>

      <div className="grid gap-4 md:grid-cols-2">
        {BREAKDOWNS.map((breakdown, index) => (
          <Breakdown key={breakdown.groupBy} title={breakdown.title} report={breakdowns[index]!} />
        ))}
      </div>
    </>
  );
}

function Breakdown({ title, report }: { title: string; report: AnalyticsReport }) {
  const most = Math.max(1, ...report.data.map((row) => row.scans));
  return (
    <section className={cardClass} aria-label={title}>
      <h2 className="mt-0 text-lg">{title}</h2>
      {report.data.length === 0 ? (
        <p className={mutedClass}>No scans in this range.</p>
      ) : (
        <table className="m-0 text-sm">
          <thead>
            <tr>
              <th scope="col">{title}</th>
              <th scope="col" className="text-right">
                Scans
              </th>
              <th scope="col" className="text-right">
                Uniques
              </th>
            </tr>
          </thead>
          <tbody>
            {report.data.slice(0, 10).map((row) => (
              <tr key={row.key}>
                <td>
                  <div className="flex flex-col gap-1">
                    <span className="break-all">{row.key}</span>
                    <span aria-hidden="true" className="block h-1.5 rounded bg-accent" style={{ width: `${(row.scans / most) * 100}%` }} />
                  </div>
                </td>
                <td className="text-right tabular-nums">{row.scans}</td>
                <td className="text-right tabular-nums">{row.uniques}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

