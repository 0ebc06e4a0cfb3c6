import { z } from "zod";

export const errorSchema = z
  .object({
    error: z.string().meta({ description: "a sentence for a human; clients must not switch on it" }),
  })
  .meta({ id: "Error", description: "Every failure has this body, with a real HTTP status code." });

export const epochMilliseconds = z.number().int().meta({ description: "epoch milliseconds" });

/** C0 controls, DEL and C1 controls: PostgreSQL refuses NUL in text, and none of them is text a person wrote. */
const CONTROL_CHARACTERS = /[\u0000-\u001F\u007F-\u009F]/;
/** The same, except line breaks and tabs, which multi-line text may carry. */
const CONTROL_CHARACTERS_BUT_LINE_BREAKS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;

/**
 * Bidirectional controls (embeddings, overrides, isolates and the directional marks): they make
 * text show in another order than it was written, so "Invoice \u202Egpj.exe" reads as "Invoice
 * exe.jpg" in a page or an e-mail.
 */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;

export const BIDI_REFUSAL =
  "must not contain bidirectional control characters (such as U+202E), which make text show in another order than it was written";

/**
 * A string field whose value is stored: refuses control characters and bidirectional controls
 * (400 naming the field), so none reaches the database, a page or an e-mail. `multiline` lets
 * line breaks and tabs through.
 */
export function storedText<Schema extends z.ZodString>(schema: Schema, options: { multiline?: boolean } = {}): Schema {
  const forbidden = options.multiline ? CONTROL_CHARACTERS_BUT_LINE_BREAKS : CONTROL_CHARACTERS;
  const message = options.multiline
    ? "must not contain control characters other than line breaks and tabs"
    : "must not contain control characters";
  return schema.refine((text) => !forbidden.test(text), message).refine((text) => !BIDI_CONTROLS.test(text), BIDI_REFUSAL);
}

/** The `cursor` query parameter of a keyset-paginated list: what its previous page answered as `next_cursor`. */
export const pageCursor = z.string().min(1).max(200).optional().meta({ description: "next_cursor from the previous page" });

/** The `next_cursor` of a keyset-paginated list's page. */
export const nextPageCursor = z
  .string()
  .nullable()
  .meta({ description: "pass as cursor for the next page; null on the last page" });
