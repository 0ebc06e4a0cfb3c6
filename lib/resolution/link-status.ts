import type { Holder } from "@/lib/links/destinations";
import type { Verdict } from "@/lib/safety/verdict";
import type { LinkVerdict } from "./link-verdict";
import { blockForAbuse } from "./store";

const OWN: Holder = { kind: "own" };

/**
 * The warning page's reason for a link a safety check found malicious; when the destination is not
 * the link's own, which part of the link holds it, numbered as the dashboard numbers them.
 */
export function verdictAbuseReason(verdict: Extract<Verdict, { status: "malicious" }>, holder: Holder = OWN): string {
  const reason = `${verdict.detail} (${verdict.source}: ${verdict.threat})`;
  switch (holder.kind) {
    case "own":
      return reason;
    case "rule":
      return `Rule ${holder.index + 1}'s destination: ${reason}`;
    case "scheduled":
      return `The destination scheduled for ${new Date(holder.at).toISOString()}: ${reason}`;
    case "scan_limit":
      return `The destination after ${holder.after} scans: ${reason}`;
  }
}

/**
 * Blocks a link unless it already is (every instance drops its cached copy); true when this call
 * blocked it. With `checkedDestination`, only while the link still holds the destination the check
 * looked at.
 */
export async function blockLink(linkId: string, reason: string, checkedDestination?: string): Promise<boolean> {
  return (await blockForAbuse(linkId, reason, checkedDestination)) !== null;
}

/** Blocks the whole link for a destination it holds that a live check found malicious (blockLink's terms). */
export function blockForVerdict(linkId: string, found: Extract<LinkVerdict, { status: "malicious" }>): Promise<boolean> {
  return blockLink(linkId, verdictAbuseReason(found.verdict, found.holder), found.destination);
}
