import { describe, expect, it } from "vitest";
import { keysetCursor } from "./cursor";
import { DomainError } from "./errors";

const byTime = keysetCursor({ createdAt: "time", id: "id" });
const byReporters = keysetCursor({ reporters: "count", lastReportedAt: "time", linkId: "id" });

describe("keysetCursor", () => {
  it("gives back the position it wrote", () => {
    const position = { reporters: 3, lastReportedAt: new Date(1_764_000_000_123), linkId: "lnk_abcdefghij0123456789" };
    expect(byReporters.decode(byReporters.encode(position))).toEqual(position);
  });

  it("writes the cursors issued before it: the values joined by ':' in base64url", () => {
    const cursor = Buffer.from("1764000000123:lnk_abcdefghij0123456789").toString("base64url");
    expect(byTime.encode({ createdAt: new Date(1_764_000_000_123), id: "lnk_abcdefghij0123456789" })).toBe(cursor);
    expect(byTime.decode(cursor)).toEqual({ createdAt: new Date(1_764_000_000_123), id: "lnk_abcdefghij0123456789" });
  });

  it.each([
    ["not base64url at all", "%%%"],
    ["a part missing", Buffer.from("1764000000123").toString("base64url")],
    ["a part too many", Buffer.from("1764000000123:lnk_abcdefghij0123456789:x").toString("base64url")],
    ["a time that is not a number", Buffer.from("soon:lnk_abcdefghij0123456789").toString("base64url")],
    ["a time PostgreSQL cannot store", Buffer.from("9999999999999999:lnk_abcdefghij0123456789").toString("base64url")],
    ["an id with a NUL", Buffer.from("1764000000123:lnk_\u0000").toString("base64url")],
    ["an empty cursor", ""],
  ])("answers null for %s", (_label, cursor) => {
    expect(byTime.decode(cursor)).toBeNull();
  });

  it("names its order first when a list has several, and refuses a cursor of another order", () => {
    const newest = keysetCursor({ createdAt: "time", id: "id" }, "newest");
    const oldest = keysetCursor({ createdAt: "time", id: "id" }, "oldest");
    const position = { createdAt: new Date(1_764_000_000_123), id: "lnk_abcdefghij0123456789" };

    expect(newest.encode(position)).toBe(Buffer.from("newest:1764000000123:lnk_abcdefghij0123456789").toString("base64url"));
    expect(newest.decode(newest.encode(position))).toEqual(position);
    expect(oldest.decode(newest.encode(position))).toBeNull();
    expect(byTime.decode(newest.encode(position))).toBeNull();
  });

  it("holds a count to a 32-bit column's size and a total to a safe integer", () => {
    const byCount = keysetCursor({ reporters: "count", id: "id" });
    const byTotal = keysetCursor({ scans: "total", id: "id" });
    const large = { id: "lnk_abcdefghij0123456789", scans: 12_345_678_901 };

    expect(byTotal.decode(byTotal.encode(large))).toEqual(large);
    expect(byCount.decode(byTotal.encode(large))).toBeNull();
  });

  it("reads a query string's cursor, answering one it did not write with the API's 400 sentence", () => {
    const position = { createdAt: new Date(1_764_000_000_123), id: "lnk_abcdefghij0123456789" };
    expect(byTime.read(byTime.encode(position))).toEqual(position);
    expect(() => byTime.read("%%%")).toThrow(
      new DomainError("invalid_request", 'The query string field "cursor" is not a cursor this service issued.'),
    );
  });

  it("answers a full page's next cursor after its last row, and null for a page that is not full", () => {
    const rows = [
      { createdAt: new Date(1_764_000_000_123), id: "lnk_abcdefghij0123456789", slug: "a" },
      { createdAt: new Date(1_764_000_000_456), id: "lnk_bcdefghij0123456789a", slug: "b" },
    ];
    expect(byTime.next(rows, 2)).toBe(byTime.encode(rows[1]!));
    expect(byTime.next(rows, 3)).toBeNull();
    expect(byTime.next([], 1)).toBeNull();
  });
});
