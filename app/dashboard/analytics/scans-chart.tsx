import { FramedTable } from "@/components/table";
import type { AnalyticsRow } from "@/lib/analytics/schemas";

const HEIGHT = 240;
const MARGIN = { top: 12, right: 12, bottom: 32, left: 44 };
const TICKS = 4;

/**
 * Two drawings of one chart: the SVG scales to its box, so one drawn for a desktop's width would
 * shrink its labels to 5 px on a phone. The phone's is narrower, with larger text and fewer labels.
 */
const LAYOUTS = [
  { width: 360, fontSize: 13, labels: 4, className: "sm:hidden" },
  { width: 720, fontSize: 11, labels: 8, className: "hidden sm:block" },
] as const;

type ChartProps = { rows: AnalyticsRow[]; groupBy: "day" | "hour"; uniques: boolean };

/**
 * Scans (bars) and unique visitors (line, when `uniques`) per bucket, drawn on the server as SVG
 * that scales to its container: no chart library and no JavaScript reach the browser (recharts alone
 * would take a third of the page's 250 kB budget). The same numbers are in the table under it.
 */
export function ScansChart({ rows, groupBy, uniques }: ChartProps) {
  return (
    <figure className="m-0 mt-4">
      {LAYOUTS.map((layout) => (
        <ChartDrawing key={layout.width} rows={rows} groupBy={groupBy} uniques={uniques} layout={layout} />
      ))}
      <figcaption id="scans-chart-caption" className="text-sm text-zinc-600 dark:text-zinc-400">
        Bars: scans per {groupBy}
        {uniques ? "; line: unique visitors." : "."}
      </figcaption>
      <details className="mt-2 text-sm">
        <summary className="mb-2">The numbers</summary>
        <FramedTable
          headings={[
            groupBy === "hour" ? "Hour" : "Day",
            { label: "Scans", numeric: true },
            ...(uniques ? [{ label: "Uniques", numeric: true } as const] : []),
          ]}
        >
          {rows.map((row) => (
            <tr key={row.key}>
              <td>{row.key}</td>
              <td className="text-right tabular-nums">{row.scans}</td>
              {uniques && <td className="text-right tabular-nums">{row.uniques}</td>}
            </tr>
          ))}
        </FramedTable>
      </details>
    </figure>
  );
}

function ChartDrawing({ rows, groupBy, uniques, layout }: ChartProps & { layout: (typeof LAYOUTS)[number] }) {
  const innerWidth = layout.width - MARGIN.left - MARGIN.right;
  const innerHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const top = niceCeiling(Math.max(1, ...rows.map((row) => row.scans)));
  const slot = innerWidth / Math.max(1, rows.length);
  const y = (value: number) => innerHeight - (value / top) * innerHeight;
  const centre = (index: number) => index * slot + slot / 2;
  const every = Math.max(1, Math.ceil(rows.length / layout.labels));
  const label = (key: string) => (groupBy === "hour" ? key.slice(11, 16) : key.slice(5));
  const uniquesLine = rows
    .map((row, index) => `${index === 0 ? "M" : "L"}${centre(index).toFixed(1)},${y(row.uniques).toFixed(1)}`)
    .join(" ");
  return (
    <svg
      viewBox={`0 0 ${layout.width} ${HEIGHT}`}
      className={`h-auto w-full text-zinc-700 dark:text-zinc-300 ${layout.className}`}
      role="img"
      aria-labelledby="scans-chart-caption"
    >
      <g transform={`translate(${MARGIN.left},${MARGIN.top})`}>
        {Array.from({ length: TICKS + 1 }, (_, tick) => (top / TICKS) * tick).map((value) => (
          <g key={value} transform={`translate(0,${y(value)})`}>
            <line x2={innerWidth} stroke="currentColor" strokeOpacity={0.15} />
            <text x={-8} dy="0.32em" textAnchor="end" fontSize={layout.fontSize} fill="currentColor">
              {value}
            </text>
          </g>
        ))}
        {rows.map((row, index) => (
          <rect
            key={row.key}
            x={index * slot + slot * 0.15}
            width={slot * 0.7}
            y={y(row.scans)}
            height={innerHeight - y(row.scans)}
            className="fill-blue-600 dark:fill-blue-400"
          />
        ))}
        {uniques && rows.length > 0 && (
          <path d={uniquesLine} fill="none" strokeWidth={2} className="stroke-amber-600 dark:stroke-amber-400" />
        )}
        {rows.map((row, index) =>
          index % every === 0 ? (
            <text
              key={row.key}
              x={centre(index)}
              y={innerHeight + 18}
              textAnchor="middle"
              fontSize={layout.fontSize}
              fill="currentColor"
            >
              {label(row.key)}
            </text>
          ) : null,
        )}
        <line y1={innerHeight} y2={innerHeight} x2={innerWidth} stroke="currentColor" />
      </g>
    </svg>
  );
}

/** The axis's top: a multiple of its four steps, so every tick is a whole number of scans. */
function niceCeiling(value: number): number {
  return Math.max(TICKS, Math.ceil(value / TICKS) * TICKS);
}
