import { z } from "zod";

export const QR_LEVELS = ["L", "M", "Q", "H"] as const;
export type QrLevel = (typeof QR_LEVELS)[number];

export const QR_FORMATS = ["svg", "png"] as const;
export type QrFormat = (typeof QR_FORMATS)[number];

export const QR_SIZE = { min: 64, max: 4096, default: 1024 } as const;
export const QR_MARGIN = { min: 0, max: 16, default: 2 } as const;

const wholeNumber = (bounds: { min: number; max: number; default: number }, unit: string) =>
  z.coerce
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .min(bounds.min, `must be at least ${bounds.min}`)
    .max(bounds.max, `must be at most ${bounds.max}`)
    .default(bounds.default)
    .meta({ description: `${unit}, ${bounds.min}–${bounds.max}`, example: bounds.default });

const colour = (fallback: string, what: string) =>
  z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/, "must be a colour written #rrggbb")
    .default(fallback)
    .transform((value) => value.toLowerCase())
    .meta({ description: `${what} colour, #rrggbb (URL-encode # as %23)`, example: fallback });

/** The options of `GET /api/links/{id}/qr`, read from the query string. */
export const qrQuery = z.strictObject({
  format: z.enum(QR_FORMATS, { error: "must be svg or png" }).default("svg").meta({ description: "svg (default) or png" }),
  size: wholeNumber(QR_SIZE, "width and height in pixels"),
  margin: wholeNumber(QR_MARGIN, "quiet zone around the code, in modules"),
  fg: colour("#000000", "module (foreground)"),
  bg: colour("#ffffff", "background"),
  level: z.enum(QR_LEVELS, { error: "must be L, M, Q or H" }).optional().meta({
    description:
      "error correction: L 7%, M 15%, Q 25%, H 30% of the code may be lost. Default M, or H with a logo; with a logo L and M are raised to Q",
  }),
  logo: z
    .enum(["true", "false"], { error: "must be true or false" })
    .default("false")
    .transform((value) => value === "true")
    .meta({ description: "true places the link's logo, else the workspace's default logo, in the centre" }),
});

export type QrOptions = z.infer<typeof qrQuery>;
