// This file imports nothing: the dashboard checks a chosen file in the browser against the same limit before uploading it.

/** The largest logo upload accepted, in bytes (1 MiB). */
export const MAX_LOGO_UPLOAD_BYTES = 1024 * 1024;
