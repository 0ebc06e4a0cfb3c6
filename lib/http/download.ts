/**
 * A file the API hands out (QR artwork, a logo). Its ETag is known before its bytes, so a
 * client revalidating with If-None-Match gets 304 without the file being loaded or drawn.
 */
export type Download = {
  etag: string;
  contentType: string;
  /** `attachment` with this file name; omitted means shown inline. */
  fileName?: string;
  /** The bytes, with the ETag of what was actually loaded (it may have changed since `etag` was computed). */
  load: () => Promise<{ body: Buffer; etag: string }>;
};

/** Private (the API needs credentials) and revalidated on every use: a 304 is cheap, and a replaced file shows at once. */
const DOWNLOAD_CACHE_CONTROL = "private, no-cache";

/** `cacheControl`: a public file's own (a preview image crawlers fetch); private and revalidated otherwise. */
export async function sendDownload(request: Request, download: Download & { cacheControl?: string }): Promise<Response> {
  const common = { "Cache-Control": download.cacheControl ?? DOWNLOAD_CACHE_CONTROL, "X-Content-Type-Options": "nosniff" };
  if (matchesIfNoneMatch(request.headers.get("if-none-match"), download.etag)) {
    return new Response(null, { status: 304, headers: { ...common, ETag: download.etag } });
  }
  const { body, etag } = await download.load();
  const headers: Record<string, string> = {
    ...common,
    "Content-Type": download.contentType,
    "Content-Length": String(body.length),
    ETag: etag,
  };
  if (download.fileName) headers["Content-Disposition"] = `attachment; filename="${download.fileName}"`;
  return new Response(new Uint8Array(body), { status: 200, headers });
}

/** The weak comparison RFC 9110 prescribes for If-None-Match: `W/` is ignored, `*` matches anything. */
export function matchesIfNoneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  const wanted = etag.replace(/^W\//, "");
  return header.split(",").some((candidate) => {
    const tag = candidate.trim();
    return tag === "*" || tag.replace(/^W\//, "") === wanted;
  });
}

/** A strong ETag from a hex digest. */
export function etagOf(hexDigest: string): string {
  return `"${hexDigest}"`;
}
