import { describe, expect, it } from "vitest";
import { pool } from "./pool";
import { arrayLiteral, arrayLiterals } from "./array-literal";

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

  it("writes an empty array as one", () => {
    expect(arrayLiteral([])).toBe("{}");
  });
});
