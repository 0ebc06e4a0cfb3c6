"use client";

import { mutedClass } from "@/components/ui/styles";
import type { QrLevel } from "@/lib/qr/schemas";
import { QRCodeSVG } from "qrcode.react";
import { useLayoutEffect, useRef } from "react";
import { LEVEL_NAMES } from "./qr-correction";

const PREVIEW_PIXELS = 240;

/** The code as the options stand, drawn by the same qrcode.react the server uses, with the logo excavated in its centre. */
export function QrPreview({
  value,
  level,
  size,
  margin,
  fg,
  bg,
  modules,
  logo,
}: {
  value: string;
  level: QrLevel;
  size: number;
  margin: number;
  fg: string;
  bg: string;
  /** The code's modules per side (ModuleProbe), once known. */
  modules: number | null;
  /** The logo's address and its side in modules; null without a logo. */
  logo: { src: string; side: number } | null;
}) {
  return (
    <figure className="m-0 justify-self-center">
      <div className="rounded-md border border-zinc-200 p-2 dark:border-zinc-700" style={{ background: bg }}>
        <QRCodeSVG
          value={value}
          level={level}
          size={(modules ?? 21) + 2 * margin}
          width={PREVIEW_PIXELS}
          height={PREVIEW_PIXELS}
          marginSize={margin}
          fgColor={fg}
          bgColor={bg}
          title={`QR code preview for ${value}`}
          data-testid="qr-preview"
          imageSettings={
            logo && logo.side > 0 && modules
              ? {
                  src: logo.src,
                  width: logo.side,
                  height: logo.side,
                  x: (modules - logo.side) / 2,
                  y: (modules - logo.side) / 2,
                  excavate: true,
                }
              : undefined
          }
        />
      </div>
      <figcaption className={mutedClass + " mt-2 text-center"}>
        {LEVEL_NAMES[level].split(":")[0]} error correction{logo ? ", with logo" : ""}, {size} × {size} px
      </figcaption>
    </figure>
  );
}

/** A hidden plain drawing without margin: its viewBox is the code's modules per side, read as the server reads it. */
export function ModuleProbe({
  value,
  level,
  onCount,
}: {
  value: string;
  level: QrLevel;
  onCount: (modules: number | null) => void;
}) {
  const probe = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const count = Number(probe.current?.querySelector("svg")?.getAttribute("viewBox")?.split(" ")[2]);
    onCount(Number.isInteger(count) ? count : null);
  }, [value, level, onCount]);
  return (
    <div ref={probe} hidden>
      <QRCodeSVG value={value} level={level} marginSize={0} />
    </div>
  );
}
