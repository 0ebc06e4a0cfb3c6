import type { ReactNode } from "react";

export type TableRow = { key: string | number; cells: ReactNode[] };

/** A plain reference table: one heading per column, one row per entry. */
export function Table({ headings, rows }: { headings: string[]; rows: TableRow[] }) {
  return (
    <table>
      <thead>
        <tr>
          {headings.map((heading) => (
            <th key={heading}>{heading}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.key}>
            {row.cells.map((cell, index) => (
              <td key={index}>{cell}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
