import { FramedTable, type Heading } from "@/components/table";
import { buttonClass, cardClass, errorClass, inputClass, labelClass, mutedClass } from "@/components/ui/styles";
import { analyticsQuery, type AnalyticsReport } from "@/lib/analytics/schemas";
import { scanAnalytics } from "@/lib/analytics/service";
import { validate } from "@/lib/http/body";
import { DomainError } from "@/lib/http/errors";
import { shortUrl } from "@/lib/links/present";
import { getLink } from "@/lib/links/service";
import Link from "next/link";
import { PRESETS, rangeFor } from "./range";
import { ScansChart } from "./scans-chart";

/**
 * The breakdowns, and whether a row's uniques are its distinct visitors. A visitor (an address and
 * browser) has one country, device and browser, so those rows count each visitor of the day exactly
 * once; the same visitor may come through several referrers or both QR and link, and the rollups
 * count a visitor only where the first scan of the day fell, so those rows get no uniques column.
 */
export const BREAKDOWNS = [
  {
    groupBy: "source",
    title: "QR code or link",
    column: "Source",
    uniques: false,
    why: "One visitor may scan the code and click the link, so unique visitors are counted for the whole range only.",
  },
  { groupBy: "country", title: "Countries", column: "Country", uniques: true },
  { groupBy: "device", title: "Devices", column: "Device", uniques: true },
  { groupBy: "browser", title: "Browsers", column: "Browser", uniques: true },
  {
    groupBy: "referrer",
    title: "Referrers",
    column: "Referrer",
    uniques: false,
    why: "One visitor may arrive from several sites, so unique visitors are counted for the whole range only.",
  },
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
      {!scope.link_id && <TopLinks principal={principal} scope={scope} search={search} />}
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
            <BreakdownTable breakdown={breakdown} report={tables[index]!} />
            {!breakdown.uniques && <p className={mutedClass + " mb-0 mt-2"}>{breakdown.why}</p>}
          </section>
        ))}
      </div>
    </>
  );
}

/** How many links the workspace's top-links table shows. */
const TOP_LINKS = 10;

/**
 * The workspace's links with the most scans in the range; each opens this page for that link alone,
 * over the same range. A link's uniques are exact: its visitors of the day are counted once each.
 */
async function TopLinks({
  principal,
  scope,
  search,
}: {
  principal: Principal;
  scope: ScanScope;
  search: Record<string, string>;
}) {
  let report: AnalyticsReport;
  try {
    report = await scanAnalytics(principal, validate(analyticsQuery, { ...scope, group_by: "link" }, "query"));
  } catch (error) {
    if (error instanceof DomainError) return null;
    throw error;
  }
  const rows = report.data.slice(0, TOP_LINKS);
  const names = await Promise.all(rows.map((row) => getLink(principal, row.key).then(shortUrl)));
  const most = Math.max(1, ...rows.map((row) => row.scans));
  return (
    <section aria-labelledby="top-links-heading" className={cardClass}>
      <h2 id="top-links-heading" className="mt-0 text-lg">
        Top links
      </h2>
      {rows.length === 0 ? (
        <p className={mutedClass}>No scans in this range.</p>
      ) : (
        <FramedTable
          caption="The links with the most scans in this range"
          headings={["Link", { label: "Scans", numeric: true }, { label: "Unique visitors", numeric: true }]}
        >
          {rows.map((row, index) => (
            <tr key={row.key}>
              <td>
                <div className="flex flex-col gap-1">
                  <Link
                    href={`/dashboard/analytics?${new URLSearchParams({ ...search, link_id: row.key })}`}
                    className="break-all"
                  >
                    {names[index]!.replace(/^https?:\/\//, "")}
                  </Link>
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
      )}
    </section>
  );
}

function BreakdownTable({ breakdown, report }: { breakdown: Breakdown; report: AnalyticsReport }) {
  if (report.data.length === 0) return <p className={mutedClass}>No scans in this range.</p>;
  const most = Math.max(1, ...report.data.map((row) => row.scans));
  const headings: Heading[] = [breakdown.column, { label: "Scans", numeric: true }];
  if (breakdown.uniques) headings.push({ label: "Unique visitors", numeric: true });
  return (
    <FramedTable caption={`${breakdown.title}, most scans first`} headings={headings}>
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
          {breakdown.uniques && <td className="text-right tabular-nums">{row.uniques}</td>}
        </tr>
      ))}
    </FramedTable>
  );
}
