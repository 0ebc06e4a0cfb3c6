import type { Download } from "@/lib/http/download";
import { notFound } from "@/lib/http/errors";
import { enforceReadBudget, type ReadBudget } from "@/lib/http/write-limit";
import { shortUrl } from "@/lib/links/present";
import { findEditableLink, getLink } from "@/lib/links/service";
import type { LinkRow } from "@/lib/links/store";
import { type LogoInfo, type LogoOwner, logoStorage } from "@/lib/logos/store";
import { processSingleton } from "@/lib/process-singleton";
import { requirePermission } from "@/lib/workspaces/permissions";
import type { Principal } from "@/lib/workspaces/types";
import { LRUCache } from "lru-cache";
import { artworkEtag, artworkFileName, levelFor, scanUrl } from "./artwork";
import { requireScannableColours } from "./contrast";
import { renderArtwork } from "./render";
import { DEFAULT_QR_DESIGN, type QrDesign, type QrDesignView, type QrQuery } from "./schemas";
import * as store from "./store";

/**
 * The QR artwork of a link, for anyone who may read the link (no subscription needed: the code
 * keeps working, so the artwork must stay available). Each option the request leaves out comes
 * from the link's saved design, else the workspace's default design, else the service's default.
 * A logo asked for in the request must exist (404); a saved design's logo is drawn when one exists,
 * so removing a logo never breaks the plain download.
 */
export async function linkArtwork(
  principal: Principal,
  linkId: string,
  query: QrQuery,
  clientNetwork: string,
): Promise<Download> {
  const link = await getLink(principal, linkId);
  const { format, ...asked } = query;
  const options = { ...(await designOf(link)).design, ...definedOnly(asked) };
  await enforceReadBudget(QR_READS, principal, clientNetwork, pixelWeight(format, options.size, READ_UNIT_SIDE));
  requireScannableColours(options.fg, options.bg);
  const centre = options.logo ? await centreLogo(link, asked.logo === true) : null;
  const { size, margin, fg, bg } = options;
  const value = scanUrl(shortUrl(link));
  const identity = { format, size, margin, fg, bg, value, level: levelFor(options.level ?? undefined, centre !== null) };
  const etag = artworkEtag({ ...identity, logoSha256: centre?.info.sha256 ?? null });
  return {
    etag,
    contentType: format === "svg" ? "image/svg+xml" : "image/png",
    fileName: artworkFileName(link, format),
    load: async () => {
      const cached = artworkCache().get(etag);
      if (cached) return { body: cached, etag };
      return drawOnce(etag, async () => {
        await enforceReadBudget(QR_DRAWINGS, principal, clientNetwork, pixelWeight(format, size, DRAWING_UNIT_SIDE));
        const logo = centre ? await logoStorage.load(centre.owner) : null;
        if (centre && !logo) throw noLogo();
        const artwork = await renderArtwork({ ...identity, logo: logo?.data ?? null });
        const drawn = artworkEtag({ ...identity, logoSha256: logo?.sha256 ?? null });
        artworkCache().set(drawn, artwork.body);
        return { body: artwork.body, etag: drawn };
      });
    },
  };
}

/**
 * What a drawing weighs in a budget: a PNG its pixels in units of `side` × `side` (at least one),
 * since rasterising, compressing and sending it grow with them (a 4096-pixel PNG is 256 times a
 * 256-pixel one); an SVG, the same few vectors whatever its size, one.
 */
export function pixelWeight(format: "svg" | "png", size: number, side: number): number {
  return format === "svg" ? 1 : Math.max(1, Math.ceil((size * size) / (side * side)));
}

/** A read weighs its drawing in default drawings (1024 × 1024 pixels): a 4096-pixel PNG, 16. */
const READ_UNIT_SIDE = 1024;
/** A new drawing weighs its pixels in 512 × 512 squares: a 4096-pixel PNG, 64; the default PNG, 4. */
const DRAWING_UNIT_SIDE = 512;

/**
 * Artwork reads a minute, weighed (READ_UNIT_SIDE): one credential (a person's session or an API
 * key), one client network (an IPv4 /24, an IPv6 /64). 120 SVGs, or seven 4096-pixel PNGs.
 */
const QR_READS: ReadBudget = { name: "qr", perCredential: 120, perNetwork: 300, reads: "QR code reads" };
/**
 * Of those, the ones drawn afresh (not in the cache), weighed (DRAWING_UNIT_SIDE): drawing a
 * 4096-pixel PNG takes a renderer for a good part of a second, so a credential draws two of them a
 * minute, or 32 PNGs of the default size, or 128 SVGs or small PNGs.
 */
const QR_DRAWINGS: ReadBudget = { name: "qr-drawings", perCredential: 128, perNetwork: 256, reads: "new QR code drawings" };

/** Drawings under way by ETag: requests for the same artwork at once wait for one drawing. */
const drawingsUnderWay = processSingleton(
  "qr.drawingsUnderWay",
  () => new Map<string, Promise<{ body: Buffer; etag: string }>>(),
);

function drawOnce(etag: string, draw: () => Promise<{ body: Buffer; etag: string }>): Promise<{ body: Buffer; etag: string }> {
  const underWay = drawingsUnderWay.get();
  const pending = underWay.get(etag);
  if (pending) return pending;
  const drawing = draw().finally(() => underWay.delete(etag));
  underWay.set(etag, drawing);
  return drawing;
}

/**
 * Drawn artwork by its ETag, which names everything the bytes depend on (the short URL, the
 * design, the logo's hash), so an entry never goes stale: a changed design or logo is another key.
 * Bounded by size (64 MiB; a 4096-pixel PNG is a few hundred KB), least recently used out first.
 */
const drawnArtwork = processSingleton(
  "qr.drawnArtwork",
  () => new LRUCache<string, Buffer>({ maxSize: 64 * 1024 * 1024, sizeCalculation: (body) => body.length }),
);

export function artworkCache(): LRUCache<string, Buffer> {
  return drawnArtwork.get();
}

/** The design a link's code is drawn with when a request names no option, and whose it is. */
export async function linkDesign(principal: Principal, linkId: string): Promise<QrDesignView> {
  const { design, source } = await designOf(await getLink(principal, linkId));
  return { ...design, source };
}

/**
 * Saving a link's design is an edit of the link (its creator, or a role that edits every link), but
 * needs no subscription: the code keeps working either way.
 */
export async function saveLinkDesign(principal: Principal, linkId: string, design: QrDesign): Promise<QrDesignView> {
  requireScannableColours(design.fg, design.bg);
  const link = await findEditableLink(principal, linkId);
  return { ...(await store.saveDesign({ kind: "link", linkId: link.id }, design)), source: "link" };
}

/** Forgets a link's own design: its code follows the workspace's default again. Returns the design now in effect. */
export async function forgetLinkDesign(principal: Principal, linkId: string): Promise<QrDesignView> {
  const link = await findEditableLink(principal, linkId);
  await store.removeLinkDesign(link.id);
  return linkDesign(principal, link.id);
}

export async function workspaceDesign(principal: Principal): Promise<QrDesignView> {
  requirePermission(principal, "links.read", "Your role in this workspace does not allow reading its QR design.");
  const saved = await store.findDesign({ kind: "workspace", workspaceId: principal.workspaceId });
  return saved ? { ...saved, source: "workspace" } : { ...DEFAULT_QR_DESIGN, source: "default" };
}

/** The workspace's default design restyles every link without its own, so it takes the right to edit any link. */
export async function saveWorkspaceDesign(principal: Principal, design: QrDesign): Promise<QrDesignView> {
  requireScannableColours(design.fg, design.bg);
  requirePermission(
    principal,
    "links.edit_any",
    "Your role in this workspace does not allow changing its default QR design, which every link's code can use; ask an owner or admin.",
  );
  return { ...(await store.saveDesign({ kind: "workspace", workspaceId: principal.workspaceId }, design)), source: "workspace" };
}

async function designOf(link: LinkRow): Promise<{ design: QrDesign; source: QrDesignView["source"] }> {
  const own = await store.findDesign({ kind: "link", linkId: link.id });
  if (own) return { design: own, source: "link" };
  const workspace = await store.findDesign({ kind: "workspace", workspaceId: link.workspaceId });
  if (workspace) return { design: workspace, source: "workspace" };
  return { design: DEFAULT_QR_DESIGN, source: "default" };
}

function definedOnly<Options extends object>(options: Options): Partial<Options> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<Options>;
}

/** The link's own logo, else its workspace's default; when neither exists, a 404 if the request asked for one, else no logo. */
async function centreLogo(link: LinkRow, required: boolean): Promise<{ owner: LogoOwner; info: LogoInfo } | null> {
  for (const owner of [
    { kind: "link", linkId: link.id },
    { kind: "workspace", workspaceId: link.workspaceId },
  ] as const) {
    const info = await logoStorage.describe(owner);
    if (info) return { owner, info };
  }
  if (required) throw noLogo();
  return null;
}

function noLogo() {
  return notFound(
    "Neither this link nor its workspace has a logo; upload one with PUT /api/links/{id}/logo or PUT " +
      "/api/workspaces/logo, or leave out logo=true.",
  );
}
