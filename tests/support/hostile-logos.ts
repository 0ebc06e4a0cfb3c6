import { pngBomb } from "./images";

/** Forty filter chains of the kind that took 246 s to refuse when rendered, as an adversarial review found. */
export function filterChainSvg(): Buffer {
  const chains = Array.from({ length: 40 }, (_, index) => index);
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="1024"><defs>${chains
      .map(
        (index) =>
          `<filter id="f${index}" x="-50%" y="-50%" width="200%" height="200%"><feTurbulence ` +
          `baseFrequency="0.9" numOctaves="10"/><feMorphology radius="100"/><feGaussianBlur ` +
          `stdDeviation="200"/></filter>`,
      )
      .join("")}</defs>${chains.map((index) => `<rect width="1024" height="1024" filter="url(#f${index})"/>`).join("")}</svg>`,
  );
}

/** A 20 KB SVG embedding an 11000×11000 PNG, which took the renderer's memory from 1.18 to 2.05 GB. */
export function embeddedBombSvg(): Buffer {
  const bomb = pngBomb(11_000).toString("base64");
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><image ` +
      `href="data:image/png;base64,${bomb}" width="100" height="100"/></svg>`,
  );
}

/** One element more than a logo may have, so the screen reads them all before refusing (about 300 KB). */
export function elementFloodSvg(): Buffer {
  const rects = Array.from(
    { length: 10_001 },
    (_, index) => `<rect x="${index % 1024}" y="${index >> 10}" width="1" height="1"/>`,
  );
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="1024">${rects.join("")}</svg>`);
}

/** Uploads a logo must be refused, each as it would be sent: its Content-Type and bytes. */
export function hostileLogos(): { name: string; type: string; bytes: Buffer }[] {
  return [
    { name: "filter chains", type: "image/svg+xml", bytes: filterChainSvg() },
    { name: "embedded 11000×11000 PNG", type: "image/svg+xml", bytes: embeddedBombSvg() },
    { name: "10,001 elements", type: "image/svg+xml", bytes: elementFloodSvg() },
    { name: "20000×20000 PNG bomb", type: "image/png", bytes: pngBomb(20_000) },
  ];
}
