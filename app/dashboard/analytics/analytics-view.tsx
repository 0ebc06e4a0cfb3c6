import { FramedTable, type Heading } from "@/components/table";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { LoadingState } from "@/components/ui/loading-state";
import { buttonClass, cardClass, errorClass, labelClass, mutedClass } from "@/components/ui/styles";
import {
  type AnalyticsFilter,
  analyticsQuery,
  type AnalyticsReport,
  type AnalyticsRow,
  type FilterDimension,
  FILTERS,
  ONE_PER_VISITOR,
} from "@/lib/analytics/schemas";
import { scanAnalytics } from "@/lib/analytics/service";
import { inCustomerWords } from "@/lib/api/customer-words";
import { validate } from "@/lib/http/body";
import { DomainError } from "@/lib/http/errors";
import { shortUrl } from "@/lib/links/present";
import { getLink } from "@/lib/links/service";
import Link from "next/link";
import { type ReactNode, Suspense } from "react";
import { PRESETS, rangeFor } from "./range";
import { ScansChart } from "./scans-chart";
import { valueInWords } from "./value-words";

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
/**
 * What is counted: a range (dates, or instants for hours) in a time zone, for one link or the whole
 * workspace, every scan or those with one value of a breakdown (the filter).
 */
export type ScanScope = { start: string; end: string; timezone: string; link_id?: string; filter?: AnalyticsFilter };
/** Where a breakdown's row leads: the analytics page narrowed to that value. */
export type FilterHref = (filter: AnalyticsFilter) => string;

/** How the page names each breakdown a filter can narrow to. */
const FILTER_NAMES: Record<FilterDimension, string> = {
  country: "country",
  device: "device",
  browser: "browser",
  os: "operating system",
  referrer: "referrer",
  source: "QR code or link",
};

/** The scope as the analytics API's query: the filter becomes its own parameter. */
function queryOf({ filter, ...scope }: ScanScope): Record<string, string> {
  return filter ? { ...scope, [filter.dimension]: filter.value } : scope;
}

/** The page's filter: the breakdown value its address names (the first, if someone typed more: the API takes one). */
function filterIn(search: Record<string, string>): AnalyticsFilter | undefined {
  const dimension = FILTERS.find((name) => search[name]);
  return dimension && { dimension, value: search[dimension]! };
}

/** The address without its filter: the range and the link stay. */
function withoutFilter(search: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(search).filter(([name]) => !(FILTERS as readonly string[]).includes(name)));
}

/** This page's address narrowed to `filter`, over the same range (and link). */
export function analyticsHref(search: Record<string, string>): FilterHref {
  return (filter) =>
    `/dashboard/analytics?${new URLSearchParams({ ...withoutFilter(search), [filter.dimension]: filter.value })}`;
}

/**
 * Whether a table's unique visitors are distinct visitors of its rows. A visitor has one country,
 * device, browser and OS: within a filter on one of those, a breakdown's rows count each visitor of
 * the day once for one link; across the workspace the other breakdowns add up each link's visitors,
 * so a visitor of two links would count twice, and only the filter's own row (the workspace's) is exact.
 */
function uniquesAreDistinct(groupBy: string, scope: ScanScope): boolean {
  const { filter } = scope;
  if (groupBy !== "total" && groupBy !== "day" && groupBy !== "link" && !ONE_PER_VISITOR.includes(groupBy)) return false;
  if (!filter) return true;
  if (!ONE_PER_VISITOR.includes(filter.dimension)) return false;
  return groupBy === "total" || groupBy === "day" || groupBy === "link" || Boolean(scope.link_id) || groupBy === filter.dimension;
}

/** Why a table (a breakdown's, or the top links' without one) has no unique visitors column, in the customer's words. */
function whyNoUniques(scope: ScanScope, breakdown?: Breakdown): string {
  if (breakdown && !breakdown.uniques) return breakdown.why;
  if (scope.filter && !ONE_PER_VISITOR.includes(scope.filter.dimension))
    return (
      `One visitor may arrive through several ${scope.filter.dimension === "source" ? "ways" : "sites"}, ` +
      "so unique visitors are not counted within this filter."
    );
  return "Within a filter, unique visitors are counted one link at a time: open a link from Top links to see them.";
}

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
  const filter = filterIn(search);
  const scope: ScanScope = {
    start: range.start,
    end: range.end,
    timezone: zone,
    ...(search.link_id && { link_id: search.link_id }),
    ...(filter && { filter }),
  };
  const csv = new URLSearchParams({ ...queryOf(scope), group_by: range.groupBy, format: "csv" });
  return (
    <>
      {filter && (
        <p
          className="m-0 flex flex-wrap items-center gap-x-3 gap-y-1 rounded-lg border border-accent px-3 py-2"
          data-testid="analytics-filter"
        >
          <span>
            Only scans whose {FILTER_NAMES[filter.dimension]} is{" "}
            <strong className="break-all">{valueInWords(filter.dimension, filter.value)}</strong>
          </span>
          <Link href={`/dashboard/analytics?${new URLSearchParams(withoutFilter(search))}`}>Show all scans</Link>
        </p>
      )}
      <form method="get" className="flex flex-wrap items-end gap-3" aria-label="Date range">
        {scope.link_id && <input type="hidden" name="link_id" value={scope.link_id} />}
        {filter && <input type="hidden" name={filter.dimension} value={filter.value} />}
        <fieldset className="m-0 flex flex-wrap gap-1 border-0 p-0">
          <legend className={labelClass + " mb-1"}>Range (time zone {zone})</legend>
          {PRESETS.filter((preset) => preset.id !== "custom").map((preset) => (
            <Button
              key={preset.id}
              type="submit"
              name="range"
              value={preset.id}
              aria-pressed={range.preset === preset.id}
              variant={range.preset === preset.id ? "primary" : "secondary"}
            >
              {preset.label}
            </Button>
          ))}
        </fieldset>
        {(["start", "end"] as const).map((end) => (
          <TextField
            key={end}
            id={`range-${end}`}
            label={end === "start" ? "From" : "To"}
            name={end}
            type="date"
            defaultValue={range.groupBy === "day" ? range[end] : undefined}
          />
        ))}
        <Button type="submit" name="range" value="custom">
          Show custom range
        </Button>
        <a href={`/dashboard/analytics/csv?${csv}`} className={buttonClass.secondary + " no-underline"} download>
          Download CSV
        </a>
      </form>
      {/* The reports stream in; a new range or filter is a new boundary, so it shows the loading state again. */}
      <Suspense key={new URLSearchParams(search).toString()} fallback={<LoadingState what="analytics" heading={false} />}>
        <ScanReports
          principal={principal}
          scope={scope}
          series={range.groupBy}
          breakdowns={BREAKDOWNS}
          level={2}
          filterHref={analyticsHref(search)}
        />
        {!scope.link_id && <TopLinks principal={principal} scope={scope} search={search} />}
      </Suspense>
    </>
  );
}

/**
 * Scans over time (totals and the chart) and one table per breakdown, each from the analytics
 * capability's own query with the API's validation, as GET /api/analytics answers them; the API's
 * sentence instead when it refuses (a range that is empty or too long, a link of another workspace).
 * A breakdown's row leads to the analytics page narrowed to its value (filterHref).
 * Used by the analytics page and a link's own page.
 */
export async function ScanReports(props: {
  principal: Principal;
  scope: ScanScope;
  series: "day" | "hour";
  breakdowns: readonly Breakdown[];
  level: 2 | 3;
  filterHref: FilterHref;
}) {
  const { principal, scope, series, breakdowns, level, filterHref } = props;
  let reports: AnalyticsReport[];
  try {
    reports = await Promise.all(
      [series, ...breakdowns.map((breakdown) => breakdown.groupBy)].map((groupBy) =>
        scanAnalytics(principal, validate(analyticsQuery, { ...queryOf(scope), group_by: groupBy }, "query")),
      ),
    );
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return (
      <p role="alert" className={errorClass}>
        {inCustomerWords(error.message)}
      </p>
    );
  }
  const [totals, ...tables] = reports as [AnalyticsReport, ...AnalyticsReport[]];
  const Heading = level === 2 ? "h2" : "h3";
  // Hours count a visitor in the hour of the day's first scan only.
  const seriesUniques = series === "day" && uniquesAreDistinct("total", scope);
  return (
    <>
      <section aria-label="Scans over time" className={cardClass}>
        <Heading className="mt-0 text-lg">Scans over time</Heading>
        <p className="m-0" data-testid="analytics-totals">
          <strong>{totals.total.scans}</strong> {totals.total.scans === 1 ? "scan" : "scans"}
          {uniquesAreDistinct("total", scope) && (
            <>
              , <strong>{totals.total.uniques}</strong> {totals.total.uniques === 1 ? "unique visitor" : "unique visitors"}
            </>
          )}
          {!scope.filter && (
            <span className={mutedClass}>
              {" "}
              · {totals.total.bots} {totals.total.bots === 1 ? "bot or preview visit" : "bot and preview visits"} not counted
            </span>
          )}
        </p>
        <ScansChart rows={totals.data} groupBy={series} uniques={seriesUniques} />
      </section>

      <div className="grid gap-4 md:grid-cols-2">
        {breakdowns.map((breakdown, index) => (
          <section key={breakdown.groupBy} className={cardClass} aria-label={breakdown.title}>
            <Heading className="mt-0 text-lg">{breakdown.title}</Heading>
            <BreakdownTable breakdown={breakdown} report={tables[index]!} scope={scope} filterHref={filterHref} />
            {!uniquesAreDistinct(breakdown.groupBy, scope) && (
              <p className={mutedClass + " mb-0 mt-2"}>{whyNoUniques(scope, breakdown)}</p>
            )}
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
    report = await scanAnalytics(principal, validate(analyticsQuery, { ...queryOf(scope), group_by: "link" }, "query"));
  } catch (error) {
    if (error instanceof DomainError) return null;
    throw error;
  }
  const rows = report.data.slice(0, TOP_LINKS);
  const names = await Promise.all(rows.map((row) => getLink(principal, row.key).then(shortUrl)));
  const most = Math.max(1, ...rows.map((row) => row.scans));
  const uniques = uniquesAreDistinct("link", scope);
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
          headings={["Link", { label: "Scans", numeric: true }, ...(uniques ? [UNIQUES_HEADING] : [])]}
        >
          {rows.map((row, index) => (
            <ScanRow key={row.key} row={row} most={most} uniques={uniques}>
              <Link href={`/dashboard/analytics?${new URLSearchParams({ ...search, link_id: row.key })}`} className="break-all">
                {names[index]!.replace(/^https?:\/\//, "")}
              </Link>
            </ScanRow>
          ))}
        </FramedTable>
      )}
      {!uniques && <p className={mutedClass + " mb-0 mt-2"}>{whyNoUniques(scope)}</p>}
    </section>
  );
}

const UNIQUES_HEADING = { label: "Unique visitors", numeric: true } as const;

/** A breakdown's ten rows with the most scans; each value leads to the page narrowed to it (but the one it is narrowed to). */
function BreakdownTable({
  breakdown,
  report,
  scope,
  filterHref,
}: {
  breakdown: Breakdown;
  report: AnalyticsReport;
  scope: ScanScope;
  filterHref: FilterHref;
}) {
  if (report.data.length === 0) return <p className={mutedClass}>No scans in this range.</p>;
  const most = Math.max(1, ...report.data.map((row) => row.scans));
  const uniques = uniquesAreDistinct(breakdown.groupBy, scope);
  const headings: Heading[] = [breakdown.column, { label: "Scans", numeric: true }, ...(uniques ? [UNIQUES_HEADING] : [])];
  const current = scope.filter?.dimension === breakdown.groupBy;
  return (
    <FramedTable caption={`${breakdown.title}, most scans first`} headings={headings}>
      {report.data.slice(0, 10).map((row) => {
        const words = valueInWords(breakdown.groupBy, row.key);
        return (
          <ScanRow key={row.key} row={row} most={most} uniques={uniques}>
            {current ? (
              <span className="break-all">{words}</span>
            ) : (
              <Link
                href={filterHref({ dimension: breakdown.groupBy, value: row.key })}
                className="break-all"
                aria-label={`${words}: show only these scans`}
              >
                {words}
              </Link>
            )}
          </ScanRow>
        );
      })}
    </FramedTable>
  );
}

/** A table row: what was counted (with a bar of its share of the most scans), its scans and, when they are distinct, its unique visitors. */
function ScanRow({ row, most, uniques, children }: { row: AnalyticsRow; most: number; uniques: boolean; children: ReactNode }) {
  return (
    <tr>
      <td>
        <div className="flex flex-col gap-1">
          {children}
          <span aria-hidden="true" className="block h-1.5 rounded bg-accent" style={{ width: `${(row.scans / most) * 100}%` }} />
        </div>
      </td>
      <td className="text-right tabular-nums">{row.scans}</td>
      {uniques && <td className="text-right tabular-nums">{row.uniques}</td>}
    </tr>
  );
}
