import { config } from "@/lib/config";

/** A social preview's bounds: Open Graph readers show about this much of each. */
export const PREVIEW_TITLE_MAX = 200;
export const PREVIEW_DESCRIPTION_MAX = 500;

/** What a link stores of its preview: each part null when unset; no part set is no preview. */
export type StoredPreview = { previewTitle: string | null; previewDescription: string | null; previewImage: string | null };

/** A preview as the API and the preview page show it; null when the link has none. */
export type Preview = { title: string | null; description: string | null; image_url: string | null };

/** The path an uploaded preview image is served from, on the service's own origin; the query names the version. */
export function previewImagePath(linkId: string): string {
  return `/api/links/${linkId}/preview/image`;
}

/**
 * The preview image's address: the service's origin, the link's path and the image's digest, so a
 * replaced image is a new address (crawlers and their caches keep images by address).
 */
export function previewImageUrl(linkId: string, sha256: string): string {
  return `${config().BASE_URL}${previewImagePath(linkId)}?v=${sha256.slice(0, 16)}`;
}

/** Whether `url` is this link's own preview image address (any version): the only image_url a link may keep. */
export function isOwnPreviewImageUrl(linkId: string, url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.origin === new URL(config().BASE_URL).origin && parsed.pathname === previewImagePath(linkId);
  } catch {
    return false;
  }
}

export function previewOf(link: { id: string } & StoredPreview): Preview | null {
  if (link.previewTitle === null && link.previewDescription === null && link.previewImage === null) return null;
  return {
    title: link.previewTitle,
    description: link.previewDescription,
    image_url: link.previewImage === null ? null : previewImageUrl(link.id, link.previewImage),
  };
}
