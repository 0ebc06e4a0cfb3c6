import type { EventType } from "@/lib/webhooks/events";

/** What each event means, in a line beside its code name (the name is what the receiver's code matches on). */
export const EVENT_MEANINGS: Record<EventType, string> = {
  "link.created": "a link was created (in the dashboard, through the API or by an import)",
  "link.updated": "a link was repointed, or its title, tags, rules or schedule changed",
  "link.archived": "a link was archived (it keeps resolving)",
  "link.restored": "an archived link is back in the list",
  "link.status_changed": "a link's check changed its standing: released after its live check, or blocked",
  "link.scanned": "someone visited a short link or scanned its QR code",
  "domain.verified": "a custom domain's DNS records were found and it can carry links",
  "domain.failed": "a custom domain's DNS no longer points here, or its certificate failed",
  "domain.expiring": "a custom domain's registration or certificate runs out in 30, 7 or 1 days",
  "member.joined": "someone accepted an invitation to the workspace",
  "member.removed": "someone left the workspace or was removed from it",
  "import.finished": "an import of links finished",
};
