import { isRecordId } from "@/lib/db/random";
import { nextPageCursor, pageCursor } from "@/lib/http/schemas";
import { z } from "zod";

export const IMPORT_FORMATS = ["auto", "bitly", "dub", "rebrandly", "shortio", "shlink", "kutt", "generic"] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];
export const IMPORT_STATUSES = ["queued", "running", "cancelling", "done", "failed", "cancelled"] as const;

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
    .meta({ description: "a verified custom domain of the workspace: codes printed without their host keep their slugs on it" }),
  dry_run: z
    .enum(["0", "1", "true", "false"], { error: "must be 1 or 0" })
    .optional()
    .transform((value) => value === "1" || value === "true")
    .meta({ description: "1: validate every row and count, write nothing" }),
});

const exportedLinks = z
  .array(z.looseObject({}).meta({ description: "a link, with the fields its service exports" }))
  .meta({ description: "the links, each an object" });

/** A JSON import file, as the document describes it; the parser (lib/imports/parser.ts) reads and checks the body itself. */
export const importJsonFile = z
  .union([
    exportedLinks,
    z.looseObject({ links: exportedLinks }),
    z.looseObject({ data: exportedLinks }),
    z.looseObject({ shortUrls: z.looseObject({ data: exportedLinks }) }),
  ])
  .meta({
    id: "ImportJsonFile",
    description:
      "A JSON export of links: an array of links, or an object whose links (Bitly, Short.io) or data (Kutt) is one, " +
      "or Shlink's page, whose shortUrls.data is one.",
  });

export const importSchema = z
  .object({
    id: z.string(),
    status: z.enum(IMPORT_STATUSES).meta({
      description:
        "queued, running, then done or failed; cancelling while the job saves the batch under way after a cancel, then cancelled",
    }),
    format: z.enum(IMPORT_FORMATS),
    dry_run: z.boolean(),
    total: z
      .number()
      .int()
      .meta({ description: "rows in the file, plus one for each further code a row printed (Bitly's custom back-halves)" }),
    processed: z.number().int().meta({ description: "entries handled so far: created + kept + merged + failed" }),
    created: z.number().int().meta({ description: "entries that became a new link (on a dry run: would become one)" }),
    kept: z
      .number()
      .int()
      .meta({
        description:
          "entries already here: the same original short URL imported before, the code already holding a link to the " +
          "same destination, or (without a code) a link of the workspace to the same destination",
      }),
    merged: z
      .number()
      .int()
      .meta({ description: "entries folded into the link an earlier row of this import made (the same code or destination)" }),
    skipped: z.number().int().meta({ description: "kept + merged, as the report counted them before it told them apart" }),
    failed: z.number().int().meta({ description: "entries not imported, each with its sentence in errors and in the report" }),
    errors: z
      .array(
        z.object({
          row: z.number().int(),
          error: z.string(),
          subject: z
            .string()
            .optional()
            .meta({ description: "what the row named, to find it: its short link, else its destination or title, as read" }),
        }),
      )
      .meta({ description: "each failed row's number as in the file (the header is row 1) and the API's sentence" }),
    created_at: z.number().int(),
    finished_at: z.number().int().nullable(),
  })
  .meta({ id: "Import" });

export const importListSchema = z.object({ imports: z.array(importSchema) }).meta({ id: "ImportList" });

export const IMPORT_OUTCOMES = ["created", "kept", "merged", "failed"] as const;
export const MAX_REPORT_PAGE = 1000;

export const importEntrySchema = z
  .object({
    entry: z
      .number()
      .int()
      .meta({ description: "the entry's place in the import, from 0 (a row, or a further code a row printed)" }),
    row: z.number().int().meta({ description: "its row in the file, as a spreadsheet numbers it (the header is row 1)" }),
    code: z
      .string()
      .nullable()
      .meta({ description: "the short link or code the row printed, as read; null when it printed none" }),
    outcome: z.enum(IMPORT_OUTCOMES),
    link_id: z
      .string()
      .nullable()
      .meta({ description: "created, kept or merged: the link now carrying the row (null on a dry run's created rows)" }),
    merged_into_row: z.number().int().nullable().meta({ description: "merged: the row whose link it was folded into" }),
    error: z.string().nullable().meta({ description: "failed: why, in the API's sentence" }),
  })
  .meta({ id: "ImportEntry" });

export const importReportSchema = z
  .object({ entries: z.array(importEntrySchema), next_cursor: nextPageCursor })
  .meta({ id: "ImportReport" });

export const importReportQuery = z.strictObject({
  outcome: z
    .enum(IMPORT_OUTCOMES, { error: `must be one of ${IMPORT_OUTCOMES.join(", ")}` })
    .optional()
    .meta({ description: "only the entries of this outcome" }),
  limit: z.coerce
    .number({ error: "must be a number" })
    .int("must be an integer")
    .min(1, "must be at least 1")
    .max(MAX_REPORT_PAGE, `must be at most ${MAX_REPORT_PAGE}`)
    .optional()
    .meta({ description: `entries a page, at most ${MAX_REPORT_PAGE} (default ${MAX_REPORT_PAGE})` }),
  cursor: pageCursor,
});

export type StartImportQuery = z.infer<typeof startImportQuery>;
export type ImportView = z.infer<typeof importSchema>;
export type ImportEntryView = z.infer<typeof importEntrySchema>;
export type ImportReportQuery = z.infer<typeof importReportQuery>;
export type ImportReportView = z.infer<typeof importReportSchema>;
