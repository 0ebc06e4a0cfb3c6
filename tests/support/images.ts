import jsQR from "jsqr";
import { crc32, deflateSync } from "node:zlib";
import sharp from "sharp";

export type Pixels = { data: Buffer; width: number; height: number };

/** RGBA pixels of a PNG, JPEG, WebP or SVG (SVGs rasterised by librsvg through sharp). */
export async function pixelsOf(image: Buffer): Promise<Pixels> {
  const { data, info } = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/**
 * What a real decoder (jsQR) reads from an image, or null. `quietZone` pads the image with
 * `background` first, as a code printed without its own margin sits on the page around it.
 */
export async function decodeQr(image: Buffer, options: { quietZone?: number; background?: string } = {}): Promise<string | null> {
  let source = image;
  if (options.quietZone) {
    const pad = options.quietZone;
    source = await sharp(image)
      .extend({ top: pad, bottom: pad, left: pad, right: pad, background: options.background ?? "#ffffff" })
      .png()
      .toBuffer();
  }
  const { data, width, height } = await pixelsOf(source);
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), width, height)?.data ?? null;
}

/** The RGBA colour at (x, y). */
export function colourAt(pixels: Pixels, x: number, y: number): [number, number, number, number] {
  const offset = (y * pixels.width + x) * 4;
  return [pixels.data[offset]!, pixels.data[offset + 1]!, pixels.data[offset + 2]!, pixels.data[offset + 3]!];
}

/** How many pixels are close to `rgb` (each channel within `tolerance`). */
export function countNear(pixels: Pixels, rgb: [number, number, number], tolerance = 40): number {
  let count = 0;
  for (let offset = 0; offset < pixels.data.length; offset += 4) {
    const near = [0, 1, 2].every((channel) => Math.abs(pixels.data[offset + channel]! - rgb[channel]!) <= tolerance);
    if (near && pixels.data[offset + 3]! > 0) count++;
  }
  return count;
}

export async function solidImage(
  format: "png" | "jpeg" | "webp",
  width: number,
  height: number,
  colour: string,
): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } })
    [format]()
    .toBuffer();
}

/**
 * A decompression bomb: a valid PNG of `side`×`side` one-bit pixels, all zero, that deflates to
 * a few kilobytes but decodes to `side`² pixels. Written by hand, since no encoder would keep it small.
 */
export function pngBomb(side: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.set([1, 0, 0, 0, 0], 8); // bit depth 1, greyscale, deflate, no filter, no interlace
  const rowBytes = 1 + Math.ceil(side / 8);
  const pixels = deflateSync(Buffer.alloc(rowBytes * side), { level: 9 });
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", pixels),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}
