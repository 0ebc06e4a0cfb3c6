import { config } from "@/lib/config";

/**
 * The caller's address for per-client limits. X-Forwarded-For entries added by proxies we run
 * are trusted from the right: the self-hosted front door appends the socket's peer, and
 * TRUSTED_PROXY_HOPS counts the proxies in front of it. Entries further left are whatever the
 * client chose to send, so they are never used.
 */
export function clientAddress(request: Request): string {
  const entries = (request.headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  const trusted = entries[Math.max(0, entries.length - 1 - config().TRUSTED_PROXY_HOPS)];
  return trusted ?? request.headers.get("x-real-ip")?.trim() ?? "unknown";
}
