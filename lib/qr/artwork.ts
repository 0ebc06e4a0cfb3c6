import { etagOf } from "@/lib/http/download";
import { QR_PARAM } from "@/lib/resolution/destination-query";
import { createHash } from "node:crypto";
import type { QrDesign, QrFormat, QrLevel } from "./schemas";

export { levelFor } from "./levels";

/** Changes whenever the drawing changes, so caches holding an older drawing revalidate to the new one. */
const ARTWORK_REVISION = "1";

/** What a code encodes: the short URL with the marker that makes its visits count as scans (stripped before redirecting). */
export function scanUrl(shortUrl: string): string {
  return `${shortUrl}?${QR_PARAM}`;
}

export type ArtworkIdentity = Omit<QrDesign, "logo" | "level"> & {
  format: QrFormat;
  value: string;
  level: QrLevel;
  logoSha256: string | null;
};

/** The ETag of a drawing: a hash of everything that decides its bytes, so it is known before drawing. */
export function artworkEtag(identity: ArtworkIdentity): string {
  const { value, format, size, margin, fg, bg, level, logoSha256 } = identity;
  return etagOf(
    createHash("sha256")
      .update(JSON.stringify([ARTWORK_REVISION, value, format, size, margin, fg, bg, level, logoSha256]))
      .digest("hex"),
  );
}

/**
 * `qr-<slug>.svg`; a custom-domain link's file name carries its host too, since its slug is unique
 * only there. A header holds ASCII only: a printed code's segments are joined by - and the rest of
 * what is not ASCII is percent-encoded.
 */
export function artworkFileName(link: { host: string | null; slug: string }, format: QrFormat): string {
  const code = encodeURIComponent(link.slug.replaceAll("/", "-"));
  return link.host ? `qr-${link.host}-${code}.${format}` : `qr-${code}.${format}`;
}
