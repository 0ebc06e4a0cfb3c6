import { colourAt, countNear, decodeQr, pixelsOf } from "@/tests/support/images";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { levelFor, scanUrl } from "./artwork";
import { renderArtwork, type ArtworkSpec } from "./render";
import type { QrLevel } from "./schemas";

const DEFAULT_HOST = scanUrl("http://s.test.example/AbCdEf7");
const CUSTOM_HOST = scanUrl("https://go.brand-example.com/spring-menu");
/** Long enough for a version whose centre holds an alignment pattern (7 and up), which the logo clears. */
const LONG_HOST = scanUrl("https://links.a-rather-long-brand-name-for-its-codes.example.com/spring-menu-2026-edition");

const COLOURS = [
  { fg: "#000000", bg: "#ffffff" },
  { fg: "#1b2a4a", bg: "#fdf6e3" },
  { fg: "#0b5d1e", bg: "#e8f5e9" },
];

const redLogo = () =>
  sharp({ create: { width: 300, height: 180, channels: 4, background: "#d02020" } })
    .png()
    .toBuffer();
/** A round logo on a transparent square: its corners show the code's background. */
const roundLogo = () =>
  sharp(
    Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200"><circle cx="100" cy="100" r="100" fill="#2040d0"/></svg>',
    ),
  )
    .png()
    .toBuffer();

function spec(overrides: Partial<ArtworkSpec>): ArtworkSpec {
  return {
    value: DEFAULT_HOST,
    format: "png",
    size: 512,
    margin: 2,
    fg: "#000000",
    bg: "#ffffff",
    level: "M",
    logo: null,
    ...overrides,
  };
}

async function decoded(artwork: { body: Buffer }, drawn: ArtworkSpec): Promise<string | null> {
  return decodeQr(artwork.body, drawn.margin === 0 ? { quietZone: 32, background: drawn.bg } : {});
}

describe("QR artwork decodes back to the short URL with the scan marker", () => {
  const plain = (["svg", "png"] as const).flatMap((format) =>
    (["L", "M", "Q", "H"] as const).flatMap((level) =>
      COLOURS.flatMap((colours) => [DEFAULT_HOST, CUSTOM_HOST].map((value) => ({ format, level, ...colours, value }))),
    ),
  );

  it.each(plain)("$format, level $level, $fg on $bg, $value", async (variant) => {
    const drawn = spec(variant);
    const artwork = await renderArtwork(drawn);
    expect(artwork.contentType).toBe(variant.format === "svg" ? "image/svg+xml" : "image/png");
    expect(await decoded(artwork, drawn)).toBe(variant.value);
  });

  const withLogo = (["svg", "png"] as const).flatMap((format) =>
    ([undefined, "L", "M", "Q", "H"] as const).flatMap((requested) =>
      [DEFAULT_HOST, CUSTOM_HOST, LONG_HOST].map((value) => ({ format, requested, value })),
    ),
  );

  it.each(withLogo)("$format with a logo, level asked $requested, $value", async ({ format, requested, value }) => {
    const level = levelFor(requested, true);
    for (const [logo, colours] of [
      [await redLogo(), COLOURS[0]!],
      [await roundLogo(), COLOURS[1]!],
    ] as const) {
      const drawn = spec({ format, level, value, logo, ...colours });
      expect(await decoded(await renderArtwork(drawn), drawn)).toBe(value);
    }
  });

  it.each([
    { size: 64, margin: 2 },
    { size: 200, margin: 4 },
    { size: 1024, margin: 0 },
    { size: 1024, margin: 16 },
    { size: 4096, margin: 2 },
  ])("at $size pixels with a margin of $margin modules", async ({ size, margin }) => {
    const drawn = spec({ size, margin });
    const artwork = await renderArtwork(drawn);
    const pixels = await pixelsOf(artwork.body);
    expect([pixels.width, pixels.height]).toEqual([size, size]);
    expect(await decoded(artwork, drawn)).toBe(DEFAULT_HOST);
  });

  it("draws both colours exactly and no others (a crisp code), and sizes the SVG as asked", async () => {
    const drawn = spec({ fg: "#1b2a4a", bg: "#fdf6e3", size: 333 });
    const svg = (await renderArtwork({ ...drawn, format: "svg" })).body.toString();
    expect(svg).toMatch(/^<svg [^>]*height="333" width="333"/);
    expect(svg).toContain('xmlns="http://www.w3.org/2000/svg"');
    expect(svg).toContain('fill="#1b2a4a"');
    expect(svg).toContain('fill="#fdf6e3"');
    expect(svg).not.toMatch(/<script|on\w+=/i);
    const pixels = await pixelsOf((await renderArtwork(drawn)).body);
    expect(countNear(pixels, [0x1b, 0x2a, 0x4a], 0) + countNear(pixels, [0xfd, 0xf6, 0xe3], 0)).toBe(333 * 333);
  });

  it("clears the modules under the logo and places the logo in the centre", async () => {
    const drawn = spec({ level: "H", size: 330, logo: await redLogo(), fg: "#000000", bg: "#ffffff" });
    const pixels = await pixelsOf((await renderArtwork(drawn)).body);
    const centre = pixels.width / 2;
    expect(colourAt(pixels, centre, centre).slice(0, 3)).toEqual([0xd0, 0x20, 0x20]);
    // 33 modules + 2×2 margin = 37 across 330 px; the cleared square is 9 modules, so its edge is
    // 4.5 modules (about 40 px) from the centre. Between the padded logo and that edge: only background.
    const pixelsPerModule = 330 / 37;
    const justInsideClearing = Math.round(centre - 4.2 * pixelsPerModule);
    expect(colourAt(pixels, justInsideClearing, Math.round(centre)).slice(0, 3)).toEqual([255, 255, 255]);
    expect(countNear(pixels, [0xd0, 0x20, 0x20], 10)).toBeGreaterThan(0);
  });

  it("refuses a logo on a code too small to make up for one, with a way forward", async () => {
    const tiny = spec({ value: "x.io/ab?qr", level: "Q", logo: await redLogo() });
    await expect(renderArtwork(tiny)).rejects.toMatchObject({
      code: "invalid_request",
      message:
        "This link's code at level Q has no room for a logo that leaves it scannable; ask for level H or leave the logo out.",
    });
    const atH = spec({ value: "x.io/ab?qr", level: "H", logo: await redLogo() });
    expect(await decoded(await renderArtwork(atH), atH)).toBe("x.io/ab?qr");
  });

  it("leaves no level under Q to a caller that draws a logo", async () => {
    const drawn = spec({ level: "M" as QrLevel, logo: await redLogo() });
    await expect(renderArtwork(drawn)).rejects.toThrow("A logo needs level Q or H, not M");
  });
});
