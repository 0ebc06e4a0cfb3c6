import { config } from "@/lib/config";
import type { OutgoingEmail } from "@/lib/email";
import { workspaceInEmail } from "@/lib/workspaces/names";
import type { WorkspaceManagers } from "@/lib/workspaces/store";
import type { DomainView } from "./schemas";

/**
 * The notice a verified domain's owners and admins receive when its DNS no longer points here:
 * which domain, what the check found wrong, the records to set, and that its links keep working
 * for every visit that reaches us.
 */
export function brokenDomainEmail(domain: DomainView, managers: WorkspaceManagers): OutgoingEmail {
  const { hostname } = domain;
  const text = [
    `The DNS of ${hostname}, a custom domain of ${workspaceInEmail(managers.workspaceName)} on ` +
      `Permalink, no longer points to us. Our check found:`,
    "",
    ...domain.validation_errors.map((problem) => `- ${problem}`),
    "",
    "Set these records at your DNS provider (type, name, value):",
    "",
    ...domain.dns.map((record) => `  ${record.type}  ${record.name}  ${record.value}`),
    "",
    `Nothing has been taken down: links on ${hostname} keep working for every visit that still ` +
      `reaches us. But visitors whose DNS now sends them elsewhere cannot reach those links until the ` +
      `records are right again.`,
    "",
    `We keep checking ${hostname} by ourselves and write once per failure: no further message until ` +
      `the records have been right again and break anew. Where it stands: the dashboard's Domains ` +
      `page, ${config().BASE_URL}/dashboard/domains (or GET /api/domains/${domain.id}).`,
  ].join("\n");
  return { to: managers.addresses, subject: `Action needed: the DNS of ${hostname} no longer points to Permalink`, text };
}
