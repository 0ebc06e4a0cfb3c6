// This file imports nothing: the dashboard checks a chosen file in the browser against the same limit before uploading it.

/** The largest logo upload accepted, in bytes (1 MiB). */
export const MAX_LOGO_UPLOAD_BYTES = 1024 * 1024;

/** The image types the dashboard's file choosers offer for a logo or a preview image (what the upload decodes). */
export const IMAGE_TYPES = "image/png,image/jpeg,image/webp,image/svg+xml";
