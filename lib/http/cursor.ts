import { isRecordId } from "@/lib/db/random";

/** The kinds of value a keyset position holds: a small count, an instant, or an id this service issued. */
type PartKind = "count" | "time" | "id";
type PartValue<Kind extends PartKind> = Kind extends "count" ? number : Kind extends "time" ? Date : string;
export type Position<Parts extends Record<string, PartKind>> = { [Name in keyof Parts]: PartValue<Parts[Name]> };

/** The text each kind is written as; anything else is not a cursor this service issued. */
const PART_SHAPE: Record<PartKind, (text: string) => boolean> = {
  count: (text) => /^\d{1,9}$/.test(text),
  time: (text) => /^\d{1,15}$/.test(text),
  id: isRecordId,
};

/**
 * The one cursor codec of keyset pagination: a position (the sort key's values, in `parts`' order)
 * written as `value:value:…` in base64url. Decoding checks every part's shape before it can reach a
 * query (a NUL or a date PostgreSQL cannot store would fail there) and answers null for anything
 * it did not write, so each caller decides what a foreign cursor means (a 400, or the first page).
 */
export function keysetCursor<const Parts extends Record<string, PartKind>>(parts: Parts) {
  const names = Object.keys(parts) as (keyof Parts & string)[];
  return {
    encode(position: Position<Parts>): string {
      const values = names.map((name) => {
        const value = position[name] as number | Date | string;
        return value instanceof Date ? value.getTime() : value;
      });
      return Buffer.from(values.join(":")).toString("base64url");
    },
    decode(cursor: string): Position<Parts> | null {
      const texts = Buffer.from(cursor, "base64url").toString().split(":");
      if (texts.length !== names.length || names.some((name, index) => !PART_SHAPE[parts[name]!](texts[index]!))) return null;
      const position = Object.fromEntries(
        names.map((name, index) => {
          const text = texts[index]!;
          const kind = parts[name]!;
          return [name, kind === "count" ? Number(text) : kind === "time" ? new Date(Number(text)) : text];
        }),
      );
      return position as Position<Parts>;
    },
  };
}
