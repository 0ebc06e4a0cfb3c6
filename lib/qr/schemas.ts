import { z } from "zod";

export const QR_LEVELS = ["L", "M", "Q", "H"] as const;
export type QrLevel = (typeof QR_LEVELS)[number];

export const QR_FORMATS = ["svg", "png"] as const;
export type QrFormat = (typeof QR_FORMATS)[number];

export const QR_SIZE = { min: 64, max: 4096, default: 1024 } as const;
export const QR_MARGIN = { min: 0, max: 16, default: 2 } as const;

/** How a code looks: what a saved design holds, and what a drawing is made with. A null level is the automatic one. */
export type QrDesign = { size: number; margin: number; fg: string; bg: string; level: QrLevel | null; logo: boolean };

/** What a code looks like when neither the request, the link nor its workspace says otherwise. */
export const DEFAULT_QR_DESIGN: QrDesign = {
  size: QR_SIZE.default,
  margin: QR_MARGIN.default,
  fg: "#000000",
  bg: "#ffffff",
  level: null,
  logo: false,
};

const wholeNumber = (bounds: { min: number; max: number; default: number }, unit: string) =>
  z.coerce
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .min(bounds.min, `must be at least ${bounds.min}`)
    .max(bounds.max, `must be at most ${bounds.max}`)
    .meta({ description: `${unit}, ${bounds.min}–${bounds.max}`, example: bounds.default });

const colour = (what: string, example: string) =>
  z
    .string({ error: "must be a colour written #rrggbb" })
    .regex(/^#[0-9a-fA-F]{6}$/, "must be a colour written #rrggbb")
    .transform((value) => value.toLowerCase())
    .meta({ description: `${what} colour, #rrggbb (in a query string, URL-encode # as %23)`, example });

const LOGO_RULE = "must be true or false";

/**
 * The rule for each option of a design, in one place: the query string of GET /api/links/{id}/qr
 * and a saved design (PUT …/qr-design) are checked by these same fields.
 */
const designFields = {
  size: wholeNumber(QR_SIZE, "width and height in pixels"),
  margin: wholeNumber(QR_MARGIN, "quiet zone around the code, in modules (the code's squares)"),
  fg: colour("module (foreground)", DEFAULT_QR_DESIGN.fg),
  bg: colour("background", DEFAULT_QR_DESIGN.bg),
  level: z.enum(QR_LEVELS, { error: "must be L, M, Q or H" }).meta({
    description:
      "error correction: L 7%, M 15%, Q 25%, H 30% of the code may be lost. Default M, or H with a " +
      "logo; with a logo L and M are raised to Q",
  }),
};

const DEFAULTS_NOTE = "; omitted, the link's saved design, else the workspace's default design, else";

/** The options of `GET /api/links/{id}/qr`, read from the query string; each one omitted comes from the saved design. */
export const qrQuery = z.strictObject({
  format: z.enum(QR_FORMATS, { error: "must be svg or png" }).default("svg").meta({ description: "svg (default) or png" }),
  size: designFields.size.optional().meta({ description: `width and height in pixels${DEFAULTS_NOTE} ${QR_SIZE.default}` }),
  margin: designFields.margin.optional().meta({ description: `quiet zone in modules${DEFAULTS_NOTE} ${QR_MARGIN.default}` }),
  fg: designFields.fg.optional(),
  bg: designFields.bg.optional(),
  level: designFields.level.optional(),
  logo: z
    .enum(["true", "false"], { error: LOGO_RULE })
    .transform((value) => value === "true")
    .optional()
    .meta({ description: `true places the link's logo, else the workspace's default logo, in the centre${DEFAULTS_NOTE} false` }),
});

export type QrQuery = z.infer<typeof qrQuery>;

/** A design to save: every option may be left out, and then takes the service's default. */
export const qrDesignBody = z
  .strictObject({
    size: designFields.size.default(DEFAULT_QR_DESIGN.size),
    margin: designFields.margin.default(DEFAULT_QR_DESIGN.margin),
    fg: designFields.fg.default(DEFAULT_QR_DESIGN.fg),
    bg: designFields.bg.default(DEFAULT_QR_DESIGN.bg),
    level: designFields.level
      .nullable()
      .default(null)
      .meta({ description: "L, M, Q or H; null or omitted is automatic: M, or H with a logo" }),
    logo: z
      .boolean({ error: LOGO_RULE })
      .default(false)
      .meta({ description: "the link's logo, else the workspace's, in the centre, whenever one of them has a logo" }),
  })
  .meta({ id: "QrDesignRequest" });

export const QR_DESIGN_SOURCES = ["link", "workspace", "default"] as const;
export type QrDesignSource = (typeof QR_DESIGN_SOURCES)[number];

export const qrDesignSchema = z
  .object({
    size: z.number().int(),
    margin: z.number().int(),
    fg: z.string(),
    bg: z.string(),
    level: z.enum(QR_LEVELS).nullable().meta({ description: "null is automatic: M, or H with a logo" }),
    logo: z.boolean(),
    source: z.enum(QR_DESIGN_SOURCES).meta({
      description:
        "whose design this is: the link's own, the workspace's default (for a link without its own), or " +
        "the service's default (nothing saved)",
    }),
  })
  .meta({ id: "QrDesign" });

export type QrDesignView = z.infer<typeof qrDesignSchema>;
