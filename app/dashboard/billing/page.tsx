import { cardClass, mutedClass } from "@/components/ui/styles";
import { requireDashboard } from "@/lib/api/dashboard";
import { CURRENCY, describePrice, offeredChoices, PLANS } from "@/lib/billing/plans";
import { describeAccount } from "@/lib/billing/service";
import { dashboardTitle } from "../page-title";
import { CheckoutButton, PortalButton } from "./billing-forms";

export const generateMetadata = () => dashboardTitle("Billing");

const dateFormat = new Intl.DateTimeFormat("en-AU", { dateStyle: "medium", timeZone: "UTC" });

export default async function BillingPage() {
  const { principal } = await requireDashboard("/dashboard/billing");
  const account = await describeAccount(principal);
  const subscribed = account.status !== "none";
  const plan = account.plan ? PLANS[account.plan].name : null;
  return (
    <div className="space-y-6">
      <h1 className="m-0 text-2xl font-bold">Billing</h1>
      <section aria-labelledby="plan-heading" className={cardClass}>
        <h2 id="plan-heading" className="mt-0 text-lg">
          Current plan
        </h2>
        <dl className="m-0 grid gap-x-6 gap-y-2 sm:grid-cols-[auto_1fr]">
          <dt className="font-medium">Plan</dt>
          <dd className="m-0" data-testid="billing-plan">
            {plan ? `${plan}, billed by the ${account.interval}` : "No subscription"}
          </dd>
          <dt className="font-medium">Status</dt>
          <dd className="m-0" data-testid="billing-status">
            {account.status.replace("_", " ")}
            {account.cancel_at_period_end && account.cycle_end && ` (ends ${dateFormat.format(account.cycle_end)})`}
            {account.grace_ends_at &&
              ` (creating and editing stop ${dateFormat.format(account.grace_ends_at)} unless the payment succeeds)`}
          </dd>
          {account.cycle_start && account.cycle_end && (
            <>
              <dt className="font-medium">This cycle</dt>
              <dd className="m-0">
                {dateFormat.format(account.cycle_start)} – {dateFormat.format(account.cycle_end)}
              </dd>
            </>
          )}
          <dt className="font-medium">New links this cycle</dt>
          <dd className="m-0">
            {account.links_created_this_cycle === null ? "—" : account.links_created_this_cycle}
            {account.cap !== null ? ` of ${account.cap}` : account.plan ? " (no cap)" : ""}
          </dd>
        </dl>
        {account.cap !== null && account.links_created_this_cycle !== null && (
          <div className="mt-3">
            <progress
              className="w-full"
              max={account.cap}
              value={account.links_created_this_cycle}
              aria-label="New links used this cycle"
            />
          </div>
        )}
        {account.can.manage_billing && subscribed && (
          <div className="mt-4">
            <PortalButton />
            <p className={mutedClass}>Change plan, update the card, cancel or resume in the billing portal.</p>
          </div>
        )}
      </section>

      <section aria-labelledby="plans-heading">
        <h2 id="plans-heading" className="text-lg">
          Plans (prices in {CURRENCY})
        </h2>
        <ul className="m-0 grid list-none gap-4 p-0 sm:grid-cols-3">
          {offeredChoices().map((choice) => {
            const current = account.active && account.plan === choice.plan && account.interval === choice.interval;
            const cap = PLANS[choice.plan].cap;
            return (
              <li key={`${choice.plan}:${choice.interval}`} className={cardClass}>
                <h3 className="mt-0 text-base">
                  {PLANS[choice.plan].name}, {choice.interval === "month" ? "monthly" : "yearly"}
                </h3>
                <p className="text-xl font-semibold">{describePrice(choice)}</p>
                <p className={mutedClass}>
                  {cap === null ? "Unlimited new links." : `${cap} new links each cycle.`} Existing links always keep resolving.
                </p>
                {current ? (
                  <p className="mb-0 font-medium">Your current plan</p>
                ) : account.can.manage_billing && !subscribed ? (
                  <CheckoutButton
                    plan={choice.plan}
                    interval={choice.interval}
                    label={`Choose ${PLANS[choice.plan].name} ${choice.interval === "month" ? "monthly" : "yearly"}`}
                  />
                ) : null}
              </li>
            );
          })}
        </ul>
        {subscribed && account.can.manage_billing && (
          <p className={mutedClass}>To move to another plan, use the billing portal.</p>
        )}
        {!account.can.manage_billing && (
          <p className={mutedClass}>Only an owner or admin of this workspace can change its subscription.</p>
        )}
      </section>
    </div>
  );
}
