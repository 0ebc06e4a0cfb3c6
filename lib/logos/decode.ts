import { DomainError } from "@/lib/http/errors";
import { rasterSize } from "./raster-header";
import { createRenderSandbox, type RenderOutcome } from "./render-sandbox";
import { LOGO_UPLOAD_TYPES, type LogoUploadType, MAX_LOGO_SIDE, MAX_LOGO_SOURCE_PIXELS } from "./schemas";
import { notWellFormed, screenSvg } from "./svg-screen";

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

/**
 * Renders run in processes of their own (render-sandbox.ts), on CPU time nothing else wants: 5 s of
 * CPU and 512 MiB each (a legitimate logo takes well under a second), one at a time and eight
 * waiting (a team uploading a handful at once is served; each waiting upload holds at most its
 * 1 MiB body), shared fairly between workspaces, and given up after 20 s if redirects and the dashboard kept the CPU from it.
 */
const sandbox = createRenderSandbox({
  timeoutMs: 5_000,
  wallClockMs: 20_000,
  memoryBytes: 512 * 1024 * 1024,
  concurrency: 1,
  queue: 8,
});

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
 * Decodes an upload and re-encodes it as a PNG of at most 1024×1024 (or as `output` says: a preview
 * image is a JPEG of at most 1200 pixels a side), so nothing of the original
 * file survives but its pixels: no metadata, no SVG scripts, event handlers or external
 * references. An SVG is screened first (svg-screen.ts refuses what a logo does not need and a
 * renderer can be made to choke on); every upload is then decoded in a sandboxed process.
 * Refuses bytes that are not the claimed type (415), images too large to decode safely (413),
 * SVG features a logo does not need (422), and renders that run past their time or memory (422).
 */
export async function encodeLogo(
  bytes: Buffer,
  type: LogoUploadType,
  workspaceId: string,
  output: { maxSide: number; format: "png" | "jpeg" } = { maxSide: MAX_LOGO_SIDE, format: "png" },
): Promise<EncodedLogo> {
  if (bytes.length === 0) throw new DomainError("invalid_request", "The request body is empty; send the image as the body.");
  if (type === "image/svg+xml") screenSvgUpload(bytes);
  else refuseHugeRaster(bytes);
  const result = await sandbox.render(
    {
      bytes,
      format: SHARP_FORMAT[type],
      maxSide: output.maxSide,
      maxSourcePixels: MAX_LOGO_SOURCE_PIXELS,
      output: output.format,
    },
    workspaceId,
  );
  return logoFromOutcome(result, type);
}

/** The re-encoded logo from the sandbox's answer, or the refusal that answer means, in a sentence. */
export function logoFromOutcome(result: RenderOutcome, type: LogoUploadType): EncodedLogo {
  switch (result.outcome) {
    case "encoded":
      return {
        data: Buffer.from(result.data.buffer, result.data.byteOffset, result.data.length),
        width: result.width,
        height: result.height,
      };
    case "wrong_format": {
      const actual = FORMAT_NAMES[result.format ?? ""] ?? `a ${result.format ?? "different"} file`;
      throw new DomainError(
        "unsupported_media_type",
        `The body is ${actual}, not the ${type} its Content-Type claims; send it with its real type.`,
      );
    }
    case "too_many_pixels":
      throw hugeRaster(result.width, result.height);
    case "unreadable":
      throw unreadable(type);
    case "timed_out":
    case "out_of_memory":
      throw new DomainError(
        "refused",
        `The ${type} image takes too much ${result.outcome === "timed_out" ? "time" : "memory"} to render; simplify it or upload a PNG.`,
      );
    case "busy":
      throw new DomainError("rate_limited", "Too many logos are being processed right now; upload it again in a minute.", {
        "Retry-After": "60",
      });
    case "starved":
      throw new DomainError(
        "rate_limited",
        "The server is too busy to finish the logo right now, so it was not changed; upload it again in a minute.",
        { "Retry-After": "60" },
      );
    case "unavailable":
      throw new DomainError(
        "not_configured",
        "The logo renderer could not be started on this server, so the logo was not changed; try again " +
          "in a minute, and tell the operator if it keeps happening.",
        { "Retry-After": "60" },
      );
  }
}

/** Raster files start with a signature; anything else sent as SVG is read as SVG and screened (a compressed .svgz is refused). */
const RASTER_SIGNATURES = [
  [0x89, 0x50, 0x4e, 0x47], // PNG
  [0xff, 0xd8, 0xff], // JPEG
  [0x47, 0x49, 0x46, 0x38], // GIF
  [0x52, 0x49, 0x46, 0x46], // RIFF (WebP)
  [0x49, 0x49, 0x2a, 0x00], // TIFF, little-endian
  [0x4d, 0x4d, 0x00, 0x2a], // TIFF, big-endian
];

function screenSvgUpload(bytes: Buffer): void {
  if (RASTER_SIGNATURES.some((signature) => signature.every((byte, index) => bytes[index] === byte))) return;
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    throw new DomainError(
      "unsupported_media_type",
      "The body is a compressed SVG (.svgz); upload the uncompressed .svg file, or a PNG.",
    );
  }
  screenSvg(bytes);
}

/** A PNG or JPEG header declaring too many pixels is refused without starting a renderer (WebP's is read by the renderer). */
function refuseHugeRaster(bytes: Buffer): void {
  const size = rasterSize(bytes);
  if (size && size.width * size.height > MAX_LOGO_SOURCE_PIXELS) throw hugeRaster(size.width, size.height);
}

function hugeRaster(width: number, height: number): DomainError {
  const megapixels = ((width * height) / 1e6).toFixed(1);
  return new DomainError(
    "too_large",
    `The image is ${width}×${height} pixels (${megapixels} megapixels); a logo may have at most ` +
      `${MAX_LOGO_SOURCE_PIXELS / 1e6} megapixels, so scale it down first.`,
  );
}

function unreadable(type: LogoUploadType): DomainError {
  if (type === "image/svg+xml") return notWellFormed();
  return new DomainError(
    "unsupported_media_type",
    `The body is not a complete, readable ${type} image; send the image file itself with its real type.`,
  );
}
