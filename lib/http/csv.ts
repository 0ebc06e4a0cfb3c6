/**
 * The one CSV writer of the project (RFC 4180, CRLF line ends). Every cell a spreadsheet would read
 * as a formula (one starting with =, +, -, @, a tab or a carriage return) is prefixed with a single
 * quote and quoted, as OWASP's "CSV Injection" advice says: a link's title or a referrer is written
 * by strangers, and an export is opened by the customer.
 */
export type CsvCell = string | number | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return text !== value || NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record, with its line end. */
export function csvRow(cells: readonly CsvCell[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}

/** A whole table: the header, then each row. */
export function csvTable(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return [header, ...rows].map(csvRow).join("");
}
