import { setImmediate as nextTurn } from "node:timers/promises";

export type ArrayElement = string | number | boolean | Date | null | undefined;

/**
 * A PostgreSQL array in its text form (`{"a",NULL,"b"}`), as node-postgres sends an array
 * parameter. node-postgres encodes every parameter inside query(), at once: for a batch of 5,000
 * scans (fifteen arrays) that held the event loop for about 20 ms, during which no visit was
 * answered. Encoded here, a batch's columns are built one at a time between turns (arrayLiterals).
 */
export function arrayLiteral(values: readonly ArrayElement[]): string {
  const elements = new Array<string>(values.length);
  for (let index = 0; index < values.length; index++) elements[index] = element(values[index]);
  return `{${elements.join(",")}}`;
}

/** Each column's arrayLiteral, one column a turn of the event loop. */
export async function arrayLiterals(columns: readonly (readonly ArrayElement[])[]): Promise<string[]> {
  const literals: string[] = [];
  for (const column of columns) {
    if (literals.length > 0) await nextTurn();
    literals.push(arrayLiteral(column));
  }
  return literals;
}

function element(value: ArrayElement): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "string") return `"${value.replace(/[\\"]/g, "\\$&")}"`;
  if (value instanceof Date) return instant(value);
  if (typeof value === "boolean") return value ? "t" : "f";
  return String(value);
}

/**
 * An instant in UTC as PostgreSQL reads it, as node-postgres writes one: toISOString's years past
 * 9999 (`+010000-…`) and before 1 (`-000001-…`) are refused by PostgreSQL, which reads `10000-…`
 * and `0002-… BC`. Quoted: a year BC has a space.
 */
function instant(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new RangeError("An array element is an invalid Date (its time is not a number).");
  const iso = date.toISOString();
  const year = date.getUTCFullYear();
  if (year >= 1 && year <= 9999) return iso;
  const rest = iso.slice(iso.indexOf("-", 1));
  return year > 9999 ? `${year}${rest}` : `"${String(1 - year).padStart(4, "0")}${rest} BC"`;
}
