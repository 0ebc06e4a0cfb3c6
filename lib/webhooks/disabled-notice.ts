import { config } from "@/lib/config";
import { sendEmail } from "@/lib/email";
import { log } from "@/lib/log";
import { findWorkspaceManagers } from "@/lib/workspaces/store";
import { MAX_ATTEMPTS } from "./retries";

/**
 * Tells the workspace's owners and admins that an endpoint was disabled after a message's last
 * retry failed. Called once per disabling (store.disableAfterFailure decides who disabled it); a
 * mail server that refuses is logged, and the endpoint stays disabled, visible in the dashboard.
 */
export async function noticeDisabledWebhook(endpoint: { workspaceId: string; webhookId: string; url: string }): Promise<void> {
  const managers = await findWorkspaceManagers(endpoint.workspaceId);
  if (!managers || managers.addresses.length === 0) return;
  const text = [
    `Permalink stopped sending webhooks to ${endpoint.url}, an endpoint of the workspace "${managers.workspaceName}".`,
    "",
    `A message to it failed ${MAX_ATTEMPTS} times over about a day (each attempt is listed in the ` +
      `endpoint's delivery log), so the endpoint is now disabled: nothing is sent to it, and events ` +
      `that happen while it is disabled are not kept for it.`,
    "",
    "Your links are not affected: every code keeps resolving as before.",
    "",
    `Once the receiver answers again, enable the endpoint (PATCH ` +
      `${config().BASE_URL}/api/webhooks/${endpoint.webhookId} with {"disabled": false}); messages ` +
      `still waiting for a retry then go out.`,
  ].join("\n");
  try {
    await sendEmail({ to: managers.addresses, subject: `Webhooks to ${endpoint.url} were disabled`, text });
  } catch (error) {
    log().warn({ err: error, webhookId: endpoint.webhookId }, "the notice of a disabled webhook endpoint was not sent");
  }
}
