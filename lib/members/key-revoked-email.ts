import { config } from "@/lib/config";
import type { OutgoingEmail } from "@/lib/email";
import { workspaceInEmail } from "@/lib/workspaces/names";
import type { WorkspaceManagers } from "@/lib/workspaces/store";

/** Why the person who claimed the key no longer may hold it. */
export type KeyHolderChange = "removed" | "left" | "demoted";

/** The change in words, after the person's address. */
export const WHAT_HAPPENED: Record<KeyHolderChange, string> = {
  removed: "was removed from the workspace",
  left: "left the workspace",
  demoted: "is no longer an owner or admin of it",
};

/**
 * The notice a workspace's owners receive when its API key went with the person who claimed it.
 * The workspace's name appears only quoted in the body, never in the Subject.
 */
export function keyRevokedEmail(owners: WorkspaceManagers, holder: string, change: KeyHolderChange): OutgoingEmail {
  const settings = `${config().BASE_URL}/dashboard/settings`;
  const text = [
    `An API key was revoked on Permalink: the key of ${workspaceInEmail(owners.workspaceName)}, ` +
      `which you own. ${holder}, who created it, ${WHAT_HAPPENED[change]}, and the key went with them.`,
    "",
    "Programs and integrations using it stop: every request with that key is refused from now on. The workspace's links keep resolving.",
    "",
    `An owner or admin can claim a new key on the Settings page, ${settings}, and give it to the integrations that need it.`,
  ].join("\n");
  return { to: owners.addresses, subject: "Your workspace's API key was revoked", text };
}
