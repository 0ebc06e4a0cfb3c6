import { z } from "zod";
import { isRecordId } from "@/lib/db/random";

export const IMPORT_FORMATS = ["auto", "bitly", "dub", "rebrandly", "shortio", "shlink", "kutt", "generic"] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];
export const IMPORT_STATUSES = ["queued", "running", "done", "failed", "cancelled"] as const;

export const MAX_IMPORT_BYTES = 20 * 1024 * 1024;
export const MAX_IMPORT_ROWS = 100_000;
/** Columns of a CSV row (or fields of a JSON link): every provider's export has a few dozen at most. */
export const MAX_IMPORT_COLUMNS = 200;
/** Characters of one CSV row: a link's fields, quoted, with room for a long destination and title. */
export const MAX_IMPORT_ROW_CHARS = 64 * 1024;
/** Levels of lists and objects in a JSON export: the peers' deepest (a page of links with tag objects) is 4. */
export const MAX_IMPORT_NESTING = 16;
export const TOO_LARGE_SENTENCE = "An import file may be at most 20 MB and 100,000 rows; split it into smaller files.";

export const startImportQuery = z.strictObject({
  format: z
    .enum(IMPORT_FORMATS, { error: `must be one of ${IMPORT_FORMATS.join(", ")}` })
    .default("auto")
    .meta({ description: `${IMPORT_FORMATS.join(", ")}; auto (default) reads the columns` }),
  domain_id: z
    .string()
    .refine(isRecordId, "must be the id of a verified custom domain of the workspace")
    .optional()
    .meta({ description: "a verified custom domain of the workspace: rows keep their slugs on it" }),
  dry_run: z
    .enum(["0", "1", "true", "false"], { error: "must be 1 or 0" })
    .optional()
    .transform((value) => value === "1" || value === "true")
    .meta({ description: "1: validate every row and count, write nothing" }),
});

export const importSchema = z
  .object({
    id: z.string(),
    status: z.enum(IMPORT_STATUSES),
    format: z.enum(IMPORT_FORMATS),
    dry_run: z.boolean(),
    total: z
      .number()
      .int()
      .meta({ description: "rows in the file, plus one for each further code a row printed (Bitly's custom back-halves)" }),
    processed: z.number().int().meta({ description: "rows handled so far" }),
    created: z.number().int(),
    skipped: z
      .number()
      .int()
      .meta({ description: "rows already imported (the same original short URL), or already a link to the same destination" }),
    failed: z.number().int(),
    errors: z
      .array(z.object({ row: z.number().int(), error: z.string() }))
      .meta({ description: "each failed row's number as in the file (the header is row 1) and the API's sentence" }),
    created_at: z.number().int(),
    finished_at: z.number().int().nullable(),
  })
  .meta({ id: "Import" });

export const importListSchema = z.object({ imports: z.array(importSchema) }).meta({ id: "ImportList" });

export type StartImportQuery = z.infer<typeof startImportQuery>;
export type ImportView = z.infer<typeof importSchema>;
