"use client";

import { useRouter } from "next/navigation";
import { QRCodeSVG } from "qrcode.react";
import { useLayoutEffect, useRef, useState, type ChangeEvent } from "react";
import { buttonClass, errorClass, inputClass, labelClass, mutedClass } from "@/components/ui/styles";
import { maxLogoModules } from "@/lib/qr/logo-area";
import { levelFor } from "@/lib/qr/levels";
import type { QrLevel } from "@/lib/qr/schemas";

type Bounds = { min: number; max: number; default: number };

type Props = {
  linkId: string;
  /** What the code encodes: the short URL with the scan marker, as the server draws it. */
  value: string;
  bounds: { size: Bounds; margin: Bounds };
  /** Whose logo the code would carry: the link's own, the workspace's default, or none. */
  logo: "link" | "workspace" | "none";
  logoVersion: string;
  canEditLogo: boolean;
  canRemoveLogo: boolean;
};

const PREVIEW_PIXELS = 240;

/** The options of GET /api/links/{id}/qr, with a live preview drawn by the same qrcode.react the server uses. */
export function QrDesigner({ linkId, value, bounds, logo, logoVersion, canEditLogo, canRemoveLogo }: Props) {
  const router = useRouter();
  const [size, setSize] = useState(bounds.size.default);
  const [margin, setMargin] = useState(bounds.margin.default);
  const [fg, setFg] = useState("#000000");
  const [bg, setBg] = useState("#ffffff");
  const [requestedLevel, setRequestedLevel] = useState<QrLevel | "">("");
  const [withLogo, setWithLogo] = useState(logo !== "none");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const showLogo = withLogo && logo !== "none";
  const level = levelFor(requestedLevel || undefined, showLogo);
  const [modules, setModules] = useState<number | null>(null);

  const query = new URLSearchParams({ size: String(size), margin: String(margin), fg, bg, logo: String(showLogo) });
  if (requestedLevel) query.set("level", requestedLevel);
  const logoSrc =
    logo === "link" ? `/dashboard/links/${linkId}/logo?v=${logoVersion}` : `/dashboard/workspace-logo?v=${logoVersion}`;
  const logoSide = showLogo && modules && (level === "Q" || level === "H") ? maxLogoModules(modules, level) : 0;

  async function download(format: "svg" | "png") {
    setError(null);
    setBusy(true);
    try {
      const response = await fetch(`/dashboard/links/${linkId}/qr?${query}&format=${format}`);
      if (!response.ok) return setError(((await response.json()) as { error: string }).error);
      const url = URL.createObjectURL(await response.blob());
      const anchor = Object.assign(document.createElement("a"), { href: url, download: fileName(response, format) });
      anchor.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } finally {
      setBusy(false);
    }
  }

  async function changeLogo(method: "PUT" | "DELETE", file?: File) {
    setError(null);
    setBusy(true);
    try {
      const response = await fetch(`/dashboard/links/${linkId}/logo`, {
        method,
        body: file,
        headers: file ? { "Content-Type": file.type || "application/octet-stream" } : undefined,
      });
      if (!response.ok) return setError(((await response.json()) as { error: string }).error);
      if (method === "PUT") setWithLogo(true);
      router.refresh();
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="grid gap-6 md:grid-cols-[auto_1fr]">
      <ModuleProbe value={value} level={level} onCount={setModules} />
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
              logoSide > 0 && modules
                ? {
                    src: logoSrc,
                    width: logoSide,
                    height: logoSide,
                    x: (modules - logoSide) / 2,
                    y: (modules - logoSide) / 2,
                    excavate: true,
                  }
                : undefined
            }
          />
        </div>
        <figcaption className={mutedClass + " mt-2 text-center"}>
          Level {level}
          {showLogo ? " with logo" : ""}, {size} × {size} px
        </figcaption>
      </figure>
      <div className="space-y-4">
        <div className="grid gap-4 sm:grid-cols-2">
          <NumberField id="qr-size" label="Size (pixels)" bounds={bounds.size} value={size} onChange={setSize} />
          <NumberField id="qr-margin" label="Margin (modules)" bounds={bounds.margin} value={margin} onChange={setMargin} />
          <ColourField id="qr-fg" label="Foreground colour" value={fg} onChange={setFg} />
          <ColourField id="qr-bg" label="Background colour" value={bg} onChange={setBg} />
          <div>
            <label htmlFor="qr-level" className={labelClass}>
              Error correction
            </label>
            <select
              id="qr-level"
              className={inputClass}
              value={requestedLevel}
              onChange={(event) => setRequestedLevel(event.target.value as QrLevel | "")}
            >
              <option value="">Default ({showLogo ? "H with a logo" : "M"})</option>
              <option value="L">L (7%)</option>
              <option value="M">M (15%)</option>
              <option value="Q">Q (25%)</option>
              <option value="H">H (30%)</option>
            </select>
          </div>
          <div className="flex items-end gap-2 pb-2">
            <input
              id="qr-logo"
              type="checkbox"
              className="h-4 w-4"
              checked={showLogo}
              disabled={logo === "none"}
              onChange={(event) => setWithLogo(event.target.checked)}
            />
            <label htmlFor="qr-logo" className="text-sm">
              Logo in the centre{" "}
              {logo === "workspace" ? "(the workspace's default)" : logo === "none" ? "(upload one first)" : ""}
            </label>
          </div>
        </div>
        <div className="flex flex-wrap gap-2">
          <button type="button" className={buttonClass.primary} disabled={busy} onClick={() => void download("svg")}>
            Download SVG
          </button>
          <button type="button" className={buttonClass.secondary} disabled={busy} onClick={() => void download("png")}>
            Download PNG
          </button>
        </div>
        <div className="space-y-2 border-t border-zinc-200 pt-4 dark:border-zinc-800">
          <label htmlFor="qr-logo-file" className={labelClass}>
            {logo === "link" ? "Replace this link's logo" : "Upload a logo for this link"} (PNG, JPEG, WebP or SVG, up to 1 MiB)
          </label>
          <input
            id="qr-logo-file"
            type="file"
            accept="image/png,image/jpeg,image/webp,image/svg+xml"
            disabled={!canEditLogo || busy}
            className="block text-sm"
            onChange={(event: ChangeEvent<HTMLInputElement>) => {
              const file = event.target.files?.[0];
              if (file) void changeLogo("PUT", file);
              event.target.value = "";
            }}
          />
          {!canEditLogo && (
            <p className={mutedClass + " m-0"}>
              Uploading a logo is an edit: it needs an active subscription and the right to edit this link.
            </p>
          )}
          {logo === "link" && canRemoveLogo && (
            <button type="button" className={buttonClass.danger} disabled={busy} onClick={() => void changeLogo("DELETE")}>
              Remove this link&apos;s logo
            </button>
          )}
        </div>
        {error && (
          <p role="alert" className={errorClass}>
            {error}
          </p>
        )}
      </div>
    </div>
  );
}

/** A hidden plain drawing without margin: its viewBox is the code's modules per side, read as the server reads it. */
function ModuleProbe({ value, level, onCount }: { value: string; level: QrLevel; onCount: (modules: number | null) => void }) {
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

function fileName(response: Response, format: string): string {
  const disposition = response.headers.get("content-disposition") ?? "";
  return /filename="([^"]+)"/.exec(disposition)?.[1] ?? `qr.${format}`;
}

function NumberField({
  id,
  label,
  bounds,
  value,
  onChange,
}: {
  id: string;
  label: string;
  bounds: Bounds;
  value: number;
  onChange: (value: number) => void;
}) {
  return (
    <div>
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
      <input
        id={id}
        type="number"
        min={bounds.min}
        max={bounds.max}
        value={value}
        className={inputClass}
        onChange={(event) =>
          onChange(Math.min(bounds.max, Math.max(bounds.min, Math.round(Number(event.target.value) || bounds.min))))
        }
      />
    </div>
  );
}

function ColourField({
  id,
  label,
  value,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <div>
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
      <div className="flex items-center gap-2">
        <input
          id={id}
          type="color"
          value={value}
          onChange={(event) => onChange(event.target.value)}
          className="h-9 w-12 cursor-pointer rounded border border-zinc-300 dark:border-zinc-700"
        />
        <code className="text-sm">{value}</code>
      </div>
    </div>
  );
}
