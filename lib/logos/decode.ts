import sharp, { type Metadata } from "sharp";
import { DomainError } from "@/lib/http/errors";
import { LOGO_UPLOAD_TYPES, type LogoUploadType, MAX_LOGO_SIDE, MAX_LOGO_SOURCE_PIXELS } from "./schemas";

/** An upload after decoding and re-encoding: a PNG that holds pixels and nothing else. */
export type EncodedLogo = { data: Buffer; width: number; height: number };

/** sharp's name for the format each upload type must actually be. */
const SHARP_FORMAT: Record<LogoUploadType, string> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/webp": "webp",
  "image/svg+xml": "svg",
};

const FORMAT_NAMES: Record<string, string> = {
  png: "a PNG",
  jpeg: "a JPEG",
  webp: "a WebP",
  svg: "an SVG",
  gif: "a GIF",
  tiff: "a TIFF",
  heif: "a HEIF",
  avif: "an AVIF",
};

/** Rendering a hostile SVG (deep nesting, huge filters) is cut off after this long. */
const DECODE_TIMEOUT_SECONDS = 10;

const SVG_BASE_DENSITY = 72;

/** The media type of an upload from its Content-Type header; 415 for anything else. */
export function logoUploadType(contentType: string | null): LogoUploadType {
  const mediaType = contentType?.split(";")[0]!.trim().toLowerCase() ?? "";
  const accepted = LOGO_UPLOAD_TYPES.find((type) => type === mediaType);
  if (!accepted) {
    const sent = mediaType ? `Content-Type ${mediaType}` : "no Content-Type";
    throw new DomainError(
      "unsupported_media_type",
      `The logo was sent with ${sent}; send the image itself as the body with Content-Type ${LOGO_UPLOAD_TYPES.join(", ")}.`,
    );
  }
  return accepted;
}

/**
 * Decodes an upload and re-encodes it as a PNG of at most 1024×1024, so nothing of the original
 * file survives but its pixels: no metadata, no SVG scripts, event handlers or external
 * references (an SVG is rasterised, and the rasteriser loads nothing from outside the file).
 * Refuses bytes that are not the claimed type (415) and images too large to decode safely (413).
 */
export async function encodeLogo(bytes: Buffer, type: LogoUploadType): Promise<EncodedLogo> {
  if (bytes.length === 0) throw new DomainError("invalid_request", "The request body is empty; send the logo image as the body.");
  const metadata = await readHeader(bytes, type);
  if (metadata.format !== SHARP_FORMAT[type]) {
    const actual = FORMAT_NAMES[metadata.format] ?? `a ${metadata.format} file`;
    throw new DomainError(
      "unsupported_media_type",
      `The body is ${actual}, not the ${type} its Content-Type claims; send it with its real type.`,
    );
  }
  const isSvg = type === "image/svg+xml";
  if (!isSvg) refuseHugeRaster(metadata);
  try {
    const { data, info } = await sharp(bytes, {
      limitInputPixels: MAX_LOGO_SOURCE_PIXELS,
      failOn: "error",
      ...(isSvg ? { density: svgDensity(metadata) } : {}),
    })
      .timeout({ seconds: DECODE_TIMEOUT_SECONDS })
      .rotate()
      .resize({ width: MAX_LOGO_SIDE, height: MAX_LOGO_SIDE, fit: "inside", withoutEnlargement: true })
      .png()
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height };
  } catch (error) {
    if (error instanceof Error && /timeout/i.test(error.message)) {
      throw new DomainError("refused", `The ${type} image took too long to render; simplify it or upload a PNG.`);
    }
    throw unreadable(type);
  }
}

/** The format and size from the file's header, without decoding its pixels. */
async function readHeader(bytes: Buffer, type: LogoUploadType): Promise<Metadata> {
  try {
    return await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    throw unreadable(type);
  }
}

function refuseHugeRaster({ width, height }: Metadata): void {
  if (width * height <= MAX_LOGO_SOURCE_PIXELS) return;
  const megapixels = ((width * height) / 1e6).toFixed(1);
  throw new DomainError(
    "too_large",
    `The image is ${width}×${height} pixels (${megapixels} megapixels); a logo may have at most ${MAX_LOGO_SOURCE_PIXELS / 1e6} megapixels, so scale it down first.`,
  );
}

/** The density that renders an SVG's declared size at most MAX_LOGO_SIDE pixels on its longer side (and small icons up to it). */
function svgDensity({ width, height }: Metadata): number {
  const longer = Math.max(width, height, 1);
  return Math.min(Math.max((SVG_BASE_DENSITY * MAX_LOGO_SIDE) / longer, 1), 100_000);
}

function unreadable(type: LogoUploadType): DomainError {
  if (type === "image/svg+xml") {
    return new DomainError(
      "unsupported_media_type",
      "The body is not a well-formed, self-contained SVG image (external entities are refused); send the SVG file itself, or a PNG.",
    );
  }
  return new DomainError(
    "unsupported_media_type",
    `The body is not a complete, readable ${type} image; send the image file itself with its real type.`,
  );
}
