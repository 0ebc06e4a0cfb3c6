import { DomainError } from "@/lib/http/errors";
import { processSingleton } from "@/lib/process-singleton";
import sharp from "sharp";
import { maxLogoModules } from "./logo-area";
import type { QrFormat, QrLevel } from "./schemas";

export type ArtworkSpec = {
  /** The text the code encodes: the short URL with the scan marker. */
  value: string;
  format: QrFormat;
  size: number;
  margin: number;
  fg: string;
  bg: string;
  level: QrLevel;
  /** The centre logo as PNG bytes, or null for a plain code. */
  logo: Buffer | null;
};

export type Artwork = { body: Buffer; contentType: string };

/** A logo narrower than this many modules would be a speck; the code is too dense to carry one. */
const MIN_LOGO_MODULES = 3;

/** The logo sits inside its cleared square with this share of the square as a background-coloured border. */
const LOGO_PADDING_SHARE = 0.08;

/**
 * Draws the code with qrcode.react's QRCodeSVG, on the server, and rasterises it for PNG. It is
 * rendered in module units (one viewBox unit per module) so the logo's square lines up exactly
 * with the modules it clears; width and height carry the requested pixel size.
 */
export async function renderArtwork(spec: ArtworkSpec): Promise<Artwork> {
  const renderer = await reactRenderer();
  const modules = countModules(renderer, spec.value, spec.level);
  const svg = spec.logo ? await svgWithLogo(renderer, spec, modules, spec.logo) : svgMarkup(renderer, spec, modules, null);
  if (spec.format === "svg") return { body: Buffer.from(svg), contentType: "image/svg+xml" };
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  return { body: png, contentType: "image/png" };
}

type CentreImage = { href: string; side: number; offset: number };

function svgMarkup(
  { createElement, QRCodeSVG, renderToStaticMarkup }: ReactRenderer,
  spec: ArtworkSpec,
  modules: number,
  image: CentreImage | null,
): string {
  return renderToStaticMarkup(
    createElement(QRCodeSVG, {
      xmlns: "http://www.w3.org/2000/svg",
      value: spec.value,
      level: spec.level,
      size: modules + 2 * spec.margin,
      width: spec.size,
      height: spec.size,
      marginSize: spec.margin,
      fgColor: spec.fg,
      bgColor: spec.bg,
      title: `QR code for ${spec.value}`,
      imageSettings: image
        ? { src: image.href, width: image.side, height: image.side, x: image.offset, y: image.offset, excavate: true }
        : undefined,
    }),
  );
}

async function svgWithLogo(renderer: ReactRenderer, spec: ArtworkSpec, modules: number, logo: Buffer): Promise<string> {
  if (spec.level !== "Q" && spec.level !== "H")
    throw new Error(`A logo needs level Q or H, not ${spec.level}: choose the level with levelFor.`);
  const side = maxLogoModules(modules, spec.level);
  if (side < MIN_LOGO_MODULES) {
    const way = spec.level === "Q" ? "ask for level H or leave the logo out" : "leave the logo out";
    throw new DomainError(
      "invalid_request",
      `This link's code at level ${spec.level} has no room for a logo that leaves it scannable; ${way}.`,
    );
  }
  const pixelsPerModule = spec.size / (modules + 2 * spec.margin);
  const href = await logoDataUrl(logo, Math.ceil(side * pixelsPerModule), spec.bg);
  return svgMarkup(renderer, spec, modules, { href, side, offset: (modules - side) / 2 });
}

/** The logo scaled to the pixels it will fill, centred on a background-coloured square. */
async function logoDataUrl(logo: Buffer, pixels: number, background: string): Promise<string> {
  const side = Math.max(1, Math.min(pixels, 1024));
  const inner = Math.max(1, Math.round(side * (1 - 2 * LOGO_PADDING_SHARE)));
  const fitted = await sharp(logo).resize(inner, inner, { fit: "contain", background: "#00000000" }).png().toBuffer();
  const square = await sharp({ create: { width: side, height: side, channels: 4, background } })
    .composite([{ input: fitted, gravity: "centre" }])
    .png()
    .toBuffer();
  return `data:image/png;base64,${square.toString("base64")}`;
}

/** Modules per side (without the quiet zone) of the code for this text and level, read from a plain rendering. */
function countModules({ createElement, QRCodeSVG, renderToStaticMarkup }: ReactRenderer, value: string, level: QrLevel): number {
  const markup = renderToStaticMarkup(createElement(QRCodeSVG, { value, level, marginSize: 0 }));
  const modules = Number(/viewBox="0 0 (\d+) /.exec(markup)?.[1]);
  if (!Number.isInteger(modules)) throw new Error("qrcode.react rendered no viewBox.");
  return modules;
}

type ReactRenderer = {
  createElement: typeof import("react").createElement;
  renderToStaticMarkup: typeof import("react-dom/server").renderToStaticMarkup;
  QRCodeSVG: typeof import("qrcode.react").QRCodeSVG;
};

/**
 * qrcode.react, React and react-dom/server are imported by Node at run time instead of being
 * bundled: Next bundles route handlers for React Server Components, where react-dom/server is
 * refused and React has no renderer for QRCodeSVG's hooks. Loaded together from node_modules,
 * the three share one React. (next.config.ts traces them into the deployment.)
 */
const loadedRenderer = processSingleton("qrReactRenderer", (): Promise<ReactRenderer> =>
  Promise.all([
    import(/* turbopackIgnore: true */ /* webpackIgnore: true */ "react"),
    import(/* turbopackIgnore: true */ /* webpackIgnore: true */ "react-dom/server"),
    import(/* turbopackIgnore: true */ /* webpackIgnore: true */ "qrcode.react"),
  ]).then(([react, server, qr]) => ({
    createElement: react.createElement,
    renderToStaticMarkup: server.renderToStaticMarkup,
    QRCodeSVG: qr.QRCodeSVG,
  })),
);

function reactRenderer(): Promise<ReactRenderer> {
  return loadedRenderer.get();
}
