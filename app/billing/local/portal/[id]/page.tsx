import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { buttonClass, cardClass, mutedClass } from "@/components/ui/styles";
import { localPortalView } from "@/lib/billing/local-pages";
import { LocalBillingPage } from "../../local-page";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Billing portal (local billing) — Permalink", robots: { index: false } };

export default async function LocalPortalPage({ params }: { params: Promise<{ id: string }> }) {
  const view = await localPortalView((await params).id);
  if (!view) notFound();
  const { standing } = view;
  return (
    <LocalBillingPage title={`Billing for ${view.workspaceName}`}>
      <section aria-label="Subscription" className={cardClass + " space-y-2"}>
        <p className="m-0">
          Subscription: <strong>{standing.status}</strong>
          {view.plan && <> ({view.plan})</>}.{" "}
          {standing.active ? "Creating and editing links is on." : "Creating and editing links is off."} Existing links keep
          resolving either way.
        </p>
        {view.cycle && (
          <p className="m-0" data-testid="billing-cycle">
            This billing cycle runs from {view.cycle.from} to {view.cycle.until}.
          </p>
        )}
      </section>
      {view.expired ? (
        <p className={mutedClass}>This portal page has expired. Open a new one from Billing in the dashboard.</p>
      ) : view.billedByStripe ? (
        <p>This subscription is billed by Stripe; manage it in Stripe&apos;s billing portal.</p>
      ) : (
        <>
          <section aria-labelledby="change-heading" className={cardClass + " space-y-3"}>
            <h2 id="change-heading" className="m-0 text-lg">
              {standing.active ? "Change plan" : "Subscribe"}
            </h2>
            {view.options.map((option) => (
              <form key={`${option.plan}:${option.interval}`} method="post" action={view.changeAction}>
                <input type="hidden" name="plan" value={option.plan} />
                <input type="hidden" name="interval" value={option.interval} />
                <button type="submit" disabled={option.current} className={buttonClass.secondary}>
                  {option.current ? `${option.label} (current plan)` : option.label}
                </button>
              </form>
            ))}
          </section>
          {standing.active && (
            <form method="post" action={view.cancelAction} className={cardClass + " space-y-3"}>
              <h2 className="m-0 text-lg">Cancel</h2>
              <p className="m-0">Cancelling stops creating and editing at once; every existing link keeps resolving.</p>
              <button type="submit" className={buttonClass.danger}>
                Cancel subscription
              </button>
            </form>
          )}
        </>
      )}
    </LocalBillingPage>
  );
}
