// The logo renderer's own process (lib/logos/render-sandbox.ts forks one per upload): it decodes
// one untrusted image with sharp and answers with what it found, so a render that runs away costs
// this process, which the sandbox kills, and never the service's. Plain JavaScript, so it starts
// without a TypeScript loader wherever the app runs.
import sharp from "sharp";

// One libvips thread and no operation cache: one core at most, and memory that is only this image's.
sharp.concurrency(1);
sharp.cache(false);

const SVG_BASE_DENSITY = 72;

// The service that forked this process died, and with it the deadline and memory watch that would
// kill this render: stop now rather than render on, unwatched, for nobody.
process.once("disconnect", () => process.exit(1));

process.once("message", async (job) => {
  const outcome = await encode(job).catch(() => ({ outcome: "unreadable" }));
  process.send(outcome, () => process.exit(0));
});

/**
 * @param {{ bytes: Uint8Array; format: string; maxSide: number; maxSourcePixels: number; output?: "png" | "jpeg" }} job
 * @returns the encoded PNG (or JPEG, on white), or why not: the bytes are another format, too many pixels, or unreadable
 */
async function encode({ bytes, format, maxSide, maxSourcePixels, output = "png" }) {
  const input = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const metadata = await sharp(input, { limitInputPixels: false }).metadata();
  if (metadata.format !== format) return { outcome: "wrong_format", format: metadata.format };
  const { width, height } = metadata;
  const isSvg = format === "svg";
  if (!isSvg && width * height > maxSourcePixels) return { outcome: "too_many_pixels", width, height };
  const resized = sharp(input, {
    limitInputPixels: maxSourcePixels,
    failOn: "error",
    ...(isSvg ? { density: svgDensity(width, height, maxSide) } : {}),
  })
    .rotate()
    .resize({ width: maxSide, height: maxSide, fit: "inside", withoutEnlargement: true });
  const encoded = output === "jpeg" ? resized.flatten({ background: "#ffffff" }).jpeg({ quality: 85 }) : resized.png();
  const { data, info } = await encoded.toBuffer({ resolveWithObject: true });
  return { outcome: "encoded", data, width: info.width, height: info.height };
}

/** The density that renders an SVG's declared size at most maxSide pixels on its longer side (and small icons up to it). */
function svgDensity(width, height, maxSide) {
  const longer = Math.max(width, height, 1);
  return Math.min(Math.max((SVG_BASE_DENSITY * maxSide) / longer, 1), 100_000);
}
