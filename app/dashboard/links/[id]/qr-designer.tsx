"use client";

import { Confirm } from "@/components/ui/confirm";
import { buttonClass, errorClass, inputClass, labelClass, mutedClass, noticeClass } from "@/components/ui/styles";
import { MAX_LOGO_UPLOAD_BYTES } from "@/lib/logos/limits";
import { unscannableColours } from "@/lib/qr/contrast";
import { levelFor } from "@/lib/qr/levels";
import { maxLogoModules } from "@/lib/qr/logo-area";
import type { QrDesignView, QrLevel } from "@/lib/qr/schemas";
import { useRouter } from "next/navigation";
import { QRCodeSVG } from "qrcode.react";
import { useLayoutEffect, useRef, useState, type ChangeEvent } from "react";
import { saveQrDesignAction } from "../actions";

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
  /** The design the code downloads with now: the link's own, the workspace's default, or the service's. */
  design: QrDesignView;
  canSaveForLink: boolean;
  canSaveDefault: boolean;
};

/** The error-correction levels in words: how much of the code may be covered or damaged and still scan. */
const LEVEL_NAMES: Record<QrLevel, string> = {
  L: "Low: 7% may be damaged",
  M: "Medium: 15% may be damaged",
  Q: "High: 25% may be damaged",
  H: "Highest: 30% may be damaged",
};

const SOURCE_SENTENCES: Record<QrDesignView["source"], string> = {
  link: "These are this link's saved options.",
  workspace: "These are the workspace's default options; save them for this link to keep its own.",
  default: "Nothing is saved yet: these are the standard options.",
};

const PREVIEW_PIXELS = 240;

/** The options of GET /api/links/{id}/qr, with a live preview drawn by the same qrcode.react the server uses. */
export function QrDesigner(props: Props) {
  const { linkId, value, bounds, logo, logoVersion, canEditLogo, canRemoveLogo, design } = props;
  const router = useRouter();
  const [size, setSize] = useState(design.size);
  const [margin, setMargin] = useState(design.margin);
  const [fg, setFg] = useState(design.fg);
  const [bg, setBg] = useState(design.bg);
  const colourProblem = unscannableColours(fg, bg);
  const [requestedLevel, setRequestedLevel] = useState<QrLevel | "">(design.level ?? "");
  // Nothing saved yet: a logo, when there is one, is what most people want on their code.
  const [withLogo, setWithLogo] = useState(design.source === "default" ? logo !== "none" : design.logo);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
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

  async function save(scope: "link" | "workspace") {
    setError(null);
    setSaved(null);
    setBusy(true);
    try {
      const level = requestedLevel || null;
      const result = await saveQrDesignAction(linkId, scope, { size, margin, fg, bg, level, logo: withLogo });
      if (!result.ok) return setError(result.error);
      setSaved(
        scope === "link"
          ? "Saved: this link's code now downloads with these options, here and through the API."
          : "Saved as the workspace's default: every link without its own options now uses these.",
      );
      router.refresh();
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
          {LEVEL_NAMES[level].split(":")[0]} error correction{showLogo ? ", with logo" : ""}, {size} × {size} px
        </figcaption>
      </figure>
      <div className="space-y-4">
        <div className="grid gap-4 sm:grid-cols-2">
          <NumberField id="qr-size" label="Size (pixels)" bounds={bounds.size} value={size} onChange={setSize} />
          <NumberField
            id="qr-margin"
            label="Quiet zone"
            hint="The blank border around the code, counted in the code's small squares; scanners need 2 to 4."
            bounds={bounds.margin}
            value={margin}
            onChange={setMargin}
          />
          <ColourField id="qr-fg" label="Foreground colour" value={fg} onChange={setFg} warned={colourProblem !== null} />
          <ColourField id="qr-bg" label="Background colour" value={bg} onChange={setBg} warned={colourProblem !== null} />
          {/* Said while the colours change, beside them, not after a download that would be refused. */}
          <p id="qr-colour-warning" role="status" className={colourProblem ? errorClass + " m-0 sm:col-span-2" : "sr-only"}>
            {colourProblem}
          </p>
          <div>
            <label htmlFor="qr-level" className={labelClass}>
              Error correction
            </label>
            <select
              id="qr-level"
              aria-describedby="qr-level-hint"
              className={inputClass}
              value={requestedLevel}
              onChange={(event) => setRequestedLevel(event.target.value as QrLevel | "")}
            >
              <option value="">Automatic ({showLogo ? "highest, with a logo" : "medium"})</option>
              {(Object.keys(LEVEL_NAMES) as QrLevel[]).map((option) => (
                <option key={option} value={option}>
                  {LEVEL_NAMES[option]}
                </option>
              ))}
            </select>
            <p id="qr-level-hint" className={mutedClass + " m-0 mt-1"}>
              How much of the code may be covered or damaged and still scan; more makes a denser code.
            </p>
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
        <div className="space-y-2">
          <p className={mutedClass + " m-0"} data-testid="qr-design-source">
            {SOURCE_SENTENCES[design.source]}
          </p>
          <div className="flex flex-wrap gap-2">
            <button
              type="button"
              className={buttonClass.secondary}
              disabled={busy || !props.canSaveForLink}
              onClick={() => void save("link")}
            >
              Save for this link
            </button>
            {props.canSaveDefault && (
              <button type="button" className={buttonClass.secondary} disabled={busy} onClick={() => void save("workspace")}>
                Save as workspace default
              </button>
            )}
          </div>
          {saved && (
            <p role="status" className={noticeClass + " m-0"}>
              {saved}
            </p>
          )}
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
              if (file && file.size > MAX_LOGO_UPLOAD_BYTES) setError(logoTooLarge(file));
              else if (file) void changeLogo("PUT", file);
              event.target.value = "";
            }}
          />
          {!canEditLogo && (
            <p className={mutedClass + " m-0"}>
              Uploading a logo is an edit: it needs an active subscription and the right to edit this link.
            </p>
          )}
          {logo === "link" && canRemoveLogo && (
            <Confirm
              label="Remove this link's logo"
              question={
                "Remove this link's logo? The image is deleted; codes downloaded from now on show the workspace's logo or none. " +
                "Codes already printed keep theirs."
              }
              confirm="Yes, remove the logo"
              onConfirm={() => void changeLogo("DELETE")}
              pending={busy}
            />
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

/** Refused here, before any upload: the sentence says how large the file is and what the limit is. */
function logoTooLarge(file: File): string {
  const megabytes = (file.size / (1024 * 1024)).toFixed(1);
  const limit = MAX_LOGO_UPLOAD_BYTES / (1024 * 1024);
  return `${file.name} is ${megabytes} MiB; a logo can be at most ${limit} MiB. Choose a smaller image or export it at a lower size.`;
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
  hint,
  bounds,
  value,
  onChange,
}: {
  id: string;
  label: string;
  hint?: string;
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
        aria-describedby={hint ? `${id}-hint` : undefined}
        className={inputClass}
        onChange={(event) =>
          onChange(Math.min(bounds.max, Math.max(bounds.min, Math.round(Number(event.target.value) || bounds.min))))
        }
      />
      {hint && (
        <p id={`${id}-hint`} className={mutedClass + " m-0 mt-1"}>
          {hint}
        </p>
      )}
    </div>
  );
}

function ColourField({
  id,
  label,
  value,
  onChange,
  warned,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** The colours together make a code many scanners miss: the field points at the warning. */
  warned: boolean;
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
          aria-describedby={warned ? "qr-colour-warning" : undefined}
          className="h-9 w-12 cursor-pointer rounded border border-zinc-300 dark:border-zinc-700"
        />
        <code className="text-sm">{value}</code>
      </div>
    </div>
  );
}
