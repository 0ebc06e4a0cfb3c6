import type { Verdict } from "@/lib/safety/verdict";
import { announceLinkChange } from "@/lib/links/changes";
import { blockForAbuse } from "./store";

/** The warning page's reason for a link a safety check found malicious. */
export function verdictAbuseReason(verdict: Extract<Verdict, { status: "malicious" }>): string {
  return `${verdict.detail} (${verdict.source}: ${verdict.threat})`;
}

/**
 * Blocks a link unless it already is, and drops every instance's cached copy; true when this call
 * blocked it. With `checkedDestination`, only while the link still points where the check looked.
 */
export async function blockLink(linkId: string, reason: string, checkedDestination?: string): Promise<boolean> {
  const blocked = await blockForAbuse(linkId, reason, checkedDestination);
  if (blocked) announceLinkChange("status_changed", blocked);
  return blocked !== null;
}
