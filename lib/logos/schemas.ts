import { z } from "zod";

/** The image types a logo may be uploaded as; every one is stored re-encoded as PNG. */
export const LOGO_UPLOAD_TYPES = ["image/png", "image/jpeg", "image/webp", "image/svg+xml"] as const;
export type LogoUploadType = (typeof LOGO_UPLOAD_TYPES)[number];

/** A stored logo is at most this many pixels wide and high. */
export const MAX_LOGO_SIDE = 1024;

/** A stored preview image is at most this many pixels wide and high (Open Graph readers show about 1200×630). */
export const MAX_PREVIEW_SIDE = 1200;

/** A raster upload decoding to more pixels than this is refused unread (a decompression bomb fits in 1 MiB). */
export const MAX_LOGO_SOURCE_PIXELS = 25_000_000;

/** An SVG logo may embed PNG or JPEG images up to this size each, and this many pixels together (the stored logo has about 1 million). */
export const MAX_EMBEDDED_IMAGE_BYTES = 256 * 1024;
export const MAX_EMBEDDED_IMAGE_PIXELS = 4_000_000;

/** Logos are a few hundred elements at most; these bound what a renderer is asked to walk. */
export const MAX_SVG_ELEMENTS = 10_000;
export const MAX_SVG_DEPTH = 100;

export const logoResponseSchema = z
  .object({
    logo: z.object({
      content_type: z.literal("image/png").meta({ description: "every upload is stored re-encoded as PNG" }),
      width: z.number().int().meta({ description: "pixels, at most 1024" }),
      height: z.number().int().meta({ description: "pixels, at most 1024" }),
      bytes: z.number().int().meta({ description: "size of the stored PNG" }),
    }),
  })
  .meta({ id: "Logo" });

export type LogoResponse = z.infer<typeof logoResponseSchema>;
