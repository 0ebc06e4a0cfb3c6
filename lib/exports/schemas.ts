import { historyEntrySchema } from "@/lib/links/history-schemas";
import { z } from "zod";

export const EXPORT_FORMATS = ["csv", "json"] as const;

export const exportLinksQuery = z.strictObject({
  format: z.enum(EXPORT_FORMATS, { error: "must be csv or json" }).default("csv").meta({ description: "csv (default) or json" }),
});

export const exportedLinkSchema = z
  .object({
    id: z.string(),
    short_url: z.url(),
    slug: z.string(),
    host: z.string().nullable(),
    destination: z.url(),
    status: z.number().int(),
    tags: z.array(z.string()),
    title: z.string().nullable(),
    created_at: z.iso.datetime(),
    archived_at: z.iso.datetime().nullable(),
    imported_from: z.string().nullable(),
    scan_limit_after: z
      .number()
      .int()
      .nullable()
      .meta({ description: "scans still covered by the link's scan limit, counted from when it was set" }),
    scan_limit_destination: z.string().nullable().meta({ description: "where the link points once its scan limit is reached" }),
    password_protected: z.boolean().meta({ description: "visitors must enter a password (the password is never exported)" }),
    preview_title: z.string().nullable().meta({ description: "the social preview's title, shown to link-preview crawlers" }),
    preview_description: z.string().nullable(),
    preview_image_url: z.string().nullable().meta({ description: "the preview's uploaded image, served from the service" }),
    preview_count: z.number().int().meta({ description: "times a link-preview crawler was shown the preview (never scans)" }),
    scans_30d: z.number().int().meta({ description: "scans by people in the last 30 days, today included (UTC days)" }),
  })
  .meta({ id: "ExportedLink" });

export const linkExportSchema = z
  .object({
    links: z.array(
      exportedLinkSchema
        .extend({
          history: z
            .array(historyEntrySchema)
            .meta({ description: "every recorded change to the link, newest first, as GET /api/links/{id}/history gives it" }),
        })
        .meta({ id: "ExportedLinkWithHistory" }),
    ),
  })
  .meta({ id: "LinkExport" });

export type ExportedLink = z.infer<typeof exportedLinkSchema>;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
