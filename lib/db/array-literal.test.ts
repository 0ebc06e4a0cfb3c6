import { describe, expect, it } from "vitest";
import { arrayLiteral, arrayLiterals } from "./array-literal";
import { pool } from "./pool";

const AWKWARD = ["plain", 'with "quotes"', "back\\slash\\", "a,b", "{braces}", " spaced ", "", "NULL", "ünïcødé 🚀", "new\nline"];

describe("arrayLiteral", () => {
  it("is read back by PostgreSQL as the values it was built from, text awkward to quote and nulls included", async () => {
    const text = [...AWKWARD, null];
    const { rows } = await pool().query<{ values: (string | null)[] }>("SELECT $1::text[] AS values", [arrayLiteral(text)]);
    expect(rows[0]!.values).toEqual(text);
  });

  it("carries instants, booleans and numbers in their types", async () => {
    const instants = [new Date("2026-11-27T08:00:00.123Z"), new Date("1999-12-31T23:59:59.999Z"), null];
    const { rows } = await pool().query<{ instants: (Date | null)[]; flags: (boolean | null)[]; counts: number[] }>(
      "SELECT $1::timestamptz[] AS instants, $2::boolean[] AS flags, $3::integer[] AS counts",
      await arrayLiterals([instants, [true, false, null], [1, 0, -7, 2147483647]]),
    );
    expect(rows[0]).toEqual({ instants, flags: [true, false, null], counts: [1, 0, -7, 2147483647] });
  });

  it("carries instants PostgreSQL holds beyond the years 1 to 9999 as node-postgres sent them: five-digit years and years BC", async () => {
    const utc = (year: number, month: number, day: number, ms = 0) => {
      const instant = new Date(Date.UTC(2000, month, day, 0, 0, 0, ms));
      instant.setUTCFullYear(year); // Date.UTC reads the years 0 to 99 as 1900 to 1999
      return instant;
    };
    const instants = [
      utc(10000, 0, 1, 1),
      new Date("+275760-09-13T00:00:00.000Z"),
      utc(0, 11, 31, 86_399_999), // the last millisecond of 1 BC
      utc(-4712, 0, 1), // PostgreSQL's first day, 1 January 4713 BC
      utc(1, 0, 1),
      utc(9999, 11, 31, 86_399_999),
    ];
    const { rows } = await pool().query<{ epochs: string[] }>(
      "SELECT array(SELECT (extract(epoch FROM t) * 1000)::numeric::text FROM unnest($1::timestamptz[]) t) AS epochs",
      [arrayLiteral(instants)],
    );
    expect(rows[0]!.epochs.map(Number)).toEqual(instants.map((instant) => instant.getTime()));
  });

  it("refuses an invalid Date with a sentence saying so, before anything is sent", () => {
    expect(() => arrayLiteral([new Date(Date.UTC(2026, 10, 27)), new Date(Number.NaN)])).toThrow(
      "An array element is an invalid Date (its time is not a number).",
    );
  });

  it("writes an empty array as one", () => {
    expect(arrayLiteral([])).toBe("{}");
  });
});
