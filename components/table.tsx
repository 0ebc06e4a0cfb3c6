import type { ReactNode } from "react";

export type TableRow = { key: string | number; cells: ReactNode[] };

/** A plain reference table: one heading per column, one row per entry; long words and values wrap, so it fits a phone. */
export function Table({ headings, rows }: { headings: string[]; rows: TableRow[] }) {
  return (
    <table>
      <thead>
        <tr>
          {headings.map((heading) => (
            <th key={heading} className="wrap-anywhere">
              {heading}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.key}>
            {row.cells.map((cell, index) => (
              <td key={index} className="wrap-anywhere">
                {cell}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A column heading; a numeric column is right-aligned, as its cells should be. */
export type Heading = string | { label: string; numeric: true };

/**
 * The dashboard's framed, horizontally scrollable table; an empty heading names an actions column
 * for screen readers only, and a caption (when given) names the table for them too.
 */
export function FramedTable({ headings, caption, children }: { headings: Heading[]; caption?: string; children: ReactNode }) {
  return (
    <div className="overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800">
      <table className="m-0 min-w-full text-sm">
        {caption && <caption className="sr-only">{caption}</caption>}
        <thead className="bg-zinc-50 dark:bg-zinc-900">
          <tr>
            {headings.map((heading) => {
              const label = typeof heading === "string" ? heading : heading.label;
              return (
                <th key={label || "actions"} scope="col" className={typeof heading === "string" ? undefined : "text-right"}>
                  {label || <span className="sr-only">Actions</span>}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
