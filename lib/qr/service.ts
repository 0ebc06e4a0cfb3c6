import type { Download } from "@/lib/http/download";
import { notFound } from "@/lib/http/errors";
import { shortUrl } from "@/lib/links/present";
import { getLink } from "@/lib/links/service";
import type { LinkRow } from "@/lib/links/store";
import { type LogoInfo, type LogoOwner, logoStorage as storage } from "@/lib/logos/storage";
import type { Principal } from "@/lib/workspaces/types";
import { artworkEtag, artworkFileName, levelFor, scanUrl } from "./artwork";
import { requireScannableColours } from "./contrast";
import { renderArtwork } from "./render";
import type { QrOptions } from "./schemas";

/**
 * The QR artwork of a link, for anyone who may read the link (no subscription needed: the code
 * keeps working, so the artwork must stay available). Colours that would not scan are refused
 * before anything is loaded.
 */
export async function linkArtwork(principal: Principal, linkId: string, options: QrOptions): Promise<Download> {
  requireScannableColours(options.fg, options.bg);
  const link = await getLink(principal, linkId);
  const centre = options.logo ? await centreLogo(link) : null;
  const { format, size, margin, fg, bg } = options;
  const identity = { format, size, margin, fg, bg, value: scanUrl(shortUrl(link)), level: levelFor(options.level, options.logo) };
  return {
    etag: artworkEtag({ ...identity, logoSha256: centre?.info.sha256 ?? null }),
    contentType: format === "svg" ? "image/svg+xml" : "image/png",
    fileName: artworkFileName(link, format),
    load: async () => {
      const logo = centre ? await storage.load(centre.owner) : null;
      if (centre && !logo) throw noLogo();
      const artwork = await renderArtwork({ ...identity, logo: logo?.data ?? null });
      return { body: artwork.body, etag: artworkEtag({ ...identity, logoSha256: logo?.sha256 ?? null }) };
    },
  };
}

/** The link's own logo, else its workspace's default. */
async function centreLogo(link: LinkRow): Promise<{ owner: LogoOwner; info: LogoInfo }> {
  for (const owner of [
    { kind: "link", linkId: link.id },
    { kind: "workspace", workspaceId: link.workspaceId },
  ] as const) {
    const info = await storage.describe(owner);
    if (info) return { owner, info };
  }
  throw noLogo();
}

function noLogo() {
  return notFound(
    "Neither this link nor its workspace has a logo; upload one with PUT /api/links/{id}/logo or PUT /api/workspaces/logo, or leave out logo=true.",
  );
}
