import { FramedTable } from "@/components/table";
import type { AnalyticsRow } from "@/lib/analytics/schemas";

const WIDTH = 720;
const HEIGHT = 240;
const MARGIN = { top: 12, right: 12, bottom: 32, left: 44 };
const TICKS = 4;

/**
 * Scans (bars) and unique visitors (line, when `uniques`) per bucket, drawn on the server as one SVG
 * that scales to its container: no chart library and no JavaScript reach the browser (recharts alone
 * would take a third of the page's 250 kB budget). The same numbers are in the table under it.
 */
export function ScansChart({ rows, groupBy, uniques }: { rows: AnalyticsRow[]; groupBy: "day" | "hour"; uniques: boolean }) {
  const innerWidth = WIDTH - MARGIN.left - MARGIN.right;
  const innerHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const top = niceCeiling(Math.max(1, ...rows.map((row) => row.scans)));
  const slot = innerWidth / Math.max(1, rows.length);
  const y = (value: number) => innerHeight - (value / top) * innerHeight;
  const centre = (index: number) => index * slot + slot / 2;
  const every = Math.max(1, Math.ceil(rows.length / 8));
  const label = (key: string) => (groupBy === "hour" ? key.slice(11, 16) : key.slice(5));
  const uniquesLine = rows
    .map((row, index) => `${index === 0 ? "M" : "L"}${centre(index).toFixed(1)},${y(row.uniques).toFixed(1)}`)
    .join(" ");
  return (
    <figure className="m-0 mt-4">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        className="h-auto w-full text-zinc-700 dark:text-zinc-300"
        role="img"
        aria-labelledby="scans-chart-caption"
      >
        <g transform={`translate(${MARGIN.left},${MARGIN.top})`}>
          {Array.from({ length: TICKS + 1 }, (_, tick) => (top / TICKS) * tick).map((value) => (
            <g key={value} transform={`translate(0,${y(value)})`}>
              <line x2={innerWidth} stroke="currentColor" strokeOpacity={0.15} />
              <text x={-8} dy="0.32em" textAnchor="end" fontSize={11} fill="currentColor">
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
              <text key={row.key} x={centre(index)} y={innerHeight + 18} textAnchor="middle" fontSize={11} fill="currentColor">
                {label(row.key)}
              </text>
            ) : null,
          )}
          <line y1={innerHeight} y2={innerHeight} x2={innerWidth} stroke="currentColor" />
        </g>
      </svg>
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

/** The axis's top: a multiple of its four steps, so every tick is a whole number of scans. */
function niceCeiling(value: number): number {
  return Math.max(TICKS, Math.ceil(value / TICKS) * TICKS);
}
