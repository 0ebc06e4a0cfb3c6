import { isRecordId } from "@/lib/db/random";
import { DomainError } from "./errors";

/**
 * The kinds of value a keyset position holds: a count that fits a 32-bit integer column, a total
 * (a bigint sum, such as a link's scans), an instant, or an id this service issued.
 */
type PartKind = "count" | "total" | "time" | "id";
type PartValue<Kind extends PartKind> = Kind extends "count" | "total" ? number : Kind extends "time" ? Date : string;
export type Position<Parts extends Record<string, PartKind>> = { [Name in keyof Parts]: PartValue<Parts[Name]> };

/** The text each kind is written as; anything else is not a cursor this service issued. */
const PART_SHAPE: Record<PartKind, (text: string) => boolean> = {
  count: (text) => /^\d{1,9}$/.test(text),
  total: (text) => /^\d{1,15}$/.test(text),
  time: (text) => /^\d{1,15}$/.test(text),
  id: isRecordId,
};

/**
 * The one cursor codec of keyset pagination: a position (the sort key's values, in `parts`' order)
 * written as `value:value:…` in base64url. Decoding checks every part's shape before it can reach a
 * query (a NUL or a date PostgreSQL cannot store would fail there) and answers null for anything
 * it did not write, so each caller decides what a foreign cursor means (the API's 400 through
 * `read`, or the first page). A cursor of one of several orders of the same list names its order
 * first (`order`), so a cursor of another order is not one this codec wrote.
 */
export function keysetCursor<const Parts extends Record<string, PartKind>>(parts: Parts, order?: string) {
  const names = Object.keys(parts) as (keyof Parts & string)[];
  const decode = (cursor: string): Position<Parts> | null => {
    const texts = Buffer.from(cursor, "base64url").toString().split(":");
    if (order !== undefined && texts.shift() !== order) return null;
    if (texts.length !== names.length || names.some((name, index) => !PART_SHAPE[parts[name]!](texts[index]!))) return null;
    const position = Object.fromEntries(
      names.map((name, index) => {
        const text = texts[index]!;
        const kind = parts[name]!;
        return [name, kind === "time" ? new Date(Number(text)) : kind === "id" ? text : Number(text)];
      }),
    );
    return position as Position<Parts>;
  };
  const encode = (position: Position<Parts>): string => {
    const values = names.map((name) => {
      const value = position[name] as number | Date | string;
      return value instanceof Date ? value.getTime() : value;
    });
    return Buffer.from((order === undefined ? values : [order, ...values]).join(":")).toString("base64url");
  };
  return {
    encode,
    decode,
    /** A page's `next_cursor`: after its last row when it is full (`limit` rows), else null (the last page). */
    next(rows: readonly Position<Parts>[], limit: number): string | null {
      const last = rows.length === limit ? rows.at(-1) : undefined;
      return last ? encode(last) : null;
    },
    /** The position a query string's cursor names; one this service did not write is the API's 400, in one sentence for every list. */
    read(cursor: string): Position<Parts> {
      const position = decode(cursor);
      if (!position)
        throw new DomainError("invalid_request", 'The query string field "cursor" is not a cursor this service issued.');
      return position;
    },
  };
}
