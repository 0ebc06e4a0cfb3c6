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
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "boolean") return value ? "t" : "f";
  return String(value);
}
