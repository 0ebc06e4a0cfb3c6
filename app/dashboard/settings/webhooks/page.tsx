import { FoldOnPhone } from "@/components/ui/fold-on-phone";
import { cardClass, mutedClass } from "@/components/ui/styles";
import { requireDashboard } from "@/lib/api/dashboard";
import { EVENT_TYPES } from "@/lib/webhooks/events";
import { deliveryLog, listWebhooks } from "@/lib/webhooks/service";
import { can } from "@/lib/workspaces/permissions";
import { dashboardTitle } from "../../page-title";
import { AddWebhookForm, WebhookCard } from "./webhook-panels";

export const generateMetadata = () => dashboardTitle("Webhooks");

const LOG_SIZE = 10;

export default async function WebhooksPage() {
  const { principal } = await requireDashboard("/dashboard/settings/webhooks");
  if (!can(principal, "webhooks.manage")) {
    return (
      <div className="space-y-6">
        <h1 className="m-0 text-2xl font-bold">Webhooks</h1>
        <p className={mutedClass}>Only the workspace&apos;s owners and admins manage webhooks.</p>
      </div>
    );
  }
  const { webhooks } = await listWebhooks(principal);
  const logs = await Promise.all(webhooks.map((webhook) => deliveryLog(principal, webhook.id, LOG_SIZE)));
  return (
    <div className="space-y-6">
      <h1 className="m-0 text-2xl font-bold">Webhooks</h1>
      <p className={mutedClass}>
        Tell your own systems when something happens to your links: each event is sent to the address you choose, signed so you
        can check it came from us, and sent again for about a day until your system takes it.
      </p>
      <section aria-labelledby="add-webhook-heading" className={cardClass}>
        <FoldOnPhone label="Add an endpoint">
          <h2 id="add-webhook-heading" className="mt-0 text-lg">
            Add an endpoint
          </h2>
          <AddWebhookForm events={[...EVENT_TYPES]} />
        </FoldOnPhone>
      </section>
      {webhooks.length === 0 ? (
        <p className={mutedClass}>No endpoints yet.</p>
      ) : (
        webhooks.map((webhook, index) => (
          <WebhookCard key={webhook.id} webhook={webhook} attempts={logs[index]!.attempts} events={[...EVENT_TYPES]} />
        ))
      )}
    </div>
  );
}
