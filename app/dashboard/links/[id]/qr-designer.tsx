"use client";

import { Button } from "@/components/ui/button";
import { errorClass, mutedClass, noticeClass } from "@/components/ui/styles";
import { unscannableColours } from "@/lib/qr/contrast";
import { levelFor } from "@/lib/qr/levels";
import { maxLogoModules } from "@/lib/qr/logo-area";
import type { QrDesignView, QrLevel } from "@/lib/qr/schemas";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { saveQrDesignAction } from "../actions";
import { ColourOptions } from "./qr-colours";
import { CorrectionOptions } from "./qr-correction";
import { type Bounds, DimensionOptions } from "./qr-dimensions";
import { LogoUpload } from "./qr-logo-upload";
import { ModuleProbe, QrPreview } from "./qr-preview";

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

const SOURCE_SENTENCES: Record<QrDesignView["source"], string> = {
  link: "These are this link's saved options.",
  workspace: "These are the workspace's default options; save them for this link to keep its own.",
  default: "Nothing is saved yet: these are the standard options.",
};

/**
 * The options of GET /api/links/{id}/qr by group (dimensions, colours, error correction and logo),
 * with a live preview, saving them for the link or the workspace, downloading, and the link's logo.
 */
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
      <QrPreview
        value={value}
        level={level}
        size={size}
        margin={margin}
        fg={fg}
        bg={bg}
        modules={modules}
        logo={showLogo ? { src: logoSrc, side: logoSide } : null}
      />
      <div className="space-y-4">
        <div className="grid gap-4 sm:grid-cols-2">
          <DimensionOptions bounds={bounds} size={size} margin={margin} onSize={setSize} onMargin={setMargin} />
          <ColourOptions fg={fg} bg={bg} onFg={setFg} onBg={setBg} problem={colourProblem} />
          <CorrectionOptions
            level={requestedLevel}
            onLevel={setRequestedLevel}
            logo={logo}
            withLogo={showLogo}
            onWithLogo={setWithLogo}
          />
        </div>
        <div className="space-y-2">
          <p className={mutedClass + " m-0"} data-testid="qr-design-source">
            {SOURCE_SENTENCES[design.source]}
          </p>
          <div className="flex flex-wrap gap-2">
            <Button disabled={busy || !props.canSaveForLink} onClick={() => void save("link")}>
              Save for this link
            </Button>
            {props.canSaveDefault && (
              <Button disabled={busy} onClick={() => void save("workspace")}>
                Save as workspace default
              </Button>
            )}
          </div>
          {saved && (
            <p role="status" className={noticeClass + " m-0"}>
              {saved}
            </p>
          )}
        </div>
        <div className="flex flex-wrap gap-2">
          <Button variant="primary" disabled={busy} onClick={() => void download("svg")}>
            Download SVG
          </Button>
          <Button disabled={busy} onClick={() => void download("png")}>
            Download PNG
          </Button>
        </div>
        <LogoUpload
          logo={logo}
          canEdit={canEditLogo}
          canRemove={canRemoveLogo}
          busy={busy}
          onUpload={(file) => void changeLogo("PUT", file)}
          onRemove={() => void changeLogo("DELETE")}
          onRefusal={setError}
        />
        {error && (
          <p role="alert" className={errorClass}>
            {error}
          </p>
        )}
      </div>
    </div>
  );
}

function fileName(response: Response, format: string): string {
  const disposition = response.headers.get("content-disposition") ?? "";
  return /filename="([^"]+)"/.exec(disposition)?.[1] ?? `qr.${format}`;
}
