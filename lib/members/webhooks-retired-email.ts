import { config } from "@/lib/config";
import type { OutgoingEmail } from "@/lib/email";
import type { RetiredEndpoints } from "@/lib/webhooks/departures";
import { workspaceInEmail } from "@/lib/workspaces/names";
import type { WorkspaceManagers } from "@/lib/workspaces/store";
import { type KeyHolderChange, WHAT_HAPPENED } from "./key-revoked-email";

/**
 * The notice a workspace's owners receive when a person who managed its webhooks left: which
 * endpoints were disabled and which secrets to rotate. The workspace's name appears only quoted
 * in the body, never in the Subject.
 */
export function webhooksRetiredEmail(
  owners: WorkspaceManagers,
  person: string,
  change: KeyHolderChange,
  endpoints: RetiredEndpoints,
): OutgoingEmail {
  const webhooksPage = `${config().BASE_URL}/dashboard/settings/webhooks`;
  const list = (items: RetiredEndpoints["disabled"]) => items.map((endpoint) => `  - ${endpoint.url} (${endpoint.id})`);
  const text = [
    `On Permalink, in ${workspaceInEmail(owners.workspaceName)}, which you own: ${person}, who managed its webhooks, ` +
      `${WHAT_HAPPENED[change]}.`,
    ...(endpoints.disabled.length > 0
      ? [
          "",
          "The webhook endpoints they created were disabled, so they receive none of the workspace's events any more:",
          ...list(endpoints.disabled),
          "Enable one again only if the receiver is yours, and give it a new secret first.",
        ]
      : []),
    ...(endpoints.rotationDue.length > 0
      ? [
          "",
          "They saw the signing secret of these endpoints (they created it or last replaced it); give each a new secret:",
          ...list(endpoints.rotationDue),
        ]
      : []),
    "",
    `The workspace's links keep resolving. Manage the endpoints on Settings › Webhooks, ${webhooksPage}.`,
  ].join("\n");
  return { to: owners.addresses, subject: "Webhooks of your workspace were disabled or need a new secret", text };
}
