/**
 * The one CSV writer of the project (RFC 4180, CRLF line ends). Every text cell is quoted, so no
 * spreadsheet splits one on a separator of its locale (a semicolon, a tab). A text cell a
 * spreadsheet could read as a formula is prefixed with a single quote, as OWASP's "CSV Injection"
 * advice says: one whose first character, after any run of whitespace, quotes and separator-like
 * characters (which some spreadsheets skip or split on: `;=1+1`), is =, +, -, @, a tab or a
 * carriage return, or their full-width forms. A link's title or a referrer is written by
 * strangers, and an export is opened by the customer.
 */
export type CsvCell = string | number | null | undefined;

const FORMULA_START = /^[\s"'`;,|:\u00a0\u3000\ufeff]*[=+\-@\t\r\uff1d\uff0b\uff0d\uff20]/;

export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return `"${text.replace(/"/g, '""')}"`;
}

/** One record, with its line end. */
export function csvRow(cells: readonly CsvCell[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}

/** A whole table: the header, then each row. */
export function csvTable(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return [header, ...rows].map(csvRow).join("");
}
