import { Button } from "@/components/ui/button";
import { buttonClass, cardClass, mutedClass, noticeClass } from "@/components/ui/styles";
import { localPortalView } from "@/lib/billing/local-pages";
import { localPortalPath } from "@/lib/billing/local-provider";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { LocalBillingPage } from "../../local-page";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Billing portal (local billing) — Permalink", robots: { index: false } };

/**
 * The local billing portal. Cancelling asks first (`?step=confirm-cancel`, a plain link, so it works
 * without JavaScript like the rest of the page) and then says it is done, with the way back to
 * Billing, as Stripe's portal returns to it.
 */
export default async function LocalPortalPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const [{ id }, search] = await Promise.all([params, searchParams]);
  const view = await localPortalView(id);
  if (!view) notFound();
  const { standing } = view;
  const here = localPortalPath(id);
  return (
    <LocalBillingPage title={`Billing for ${view.workspaceName}`}>
      {search.done === "cancelled" && !standing.active && (
        <div role="status" className={noticeClass + " space-y-2"}>
          <p className="m-0">The subscription is cancelled. Every existing link keeps resolving.</p>
          <Link href="/dashboard/billing">Return to Billing</Link>
        </div>
      )}
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
                <Button type="submit" disabled={option.current}>
                  {option.current ? `${option.label} (current plan)` : option.label}
                </Button>
              </form>
            ))}
          </section>
          {standing.active &&
            (search.step === "confirm-cancel" ? (
              <form
                method="post"
                action={view.cancelAction}
                aria-label="Confirm: cancel the subscription"
                className={cardClass + " space-y-3"}
              >
                <h2 className="m-0 text-lg">Cancel the subscription of {view.workspaceName}?</h2>
                <p className="m-0">Creating and editing links stops at once; every existing link keeps resolving.</p>
                <div className="flex flex-wrap items-center gap-3">
                  <Button variant="danger" type="submit">
                    Yes, cancel the subscription
                  </Button>
                  <Link href={here}>Keep the subscription</Link>
                </div>
              </form>
            ) : (
              <section aria-labelledby="cancel-heading" className={cardClass + " space-y-3"}>
                <h2 id="cancel-heading" className="m-0 text-lg">
                  Cancel
                </h2>
                <p className="m-0">Cancelling stops creating and editing at once; every existing link keeps resolving.</p>
                <Link href={`${here}?step=confirm-cancel`} className={buttonClass.danger + " no-underline"}>
                  Cancel subscription
                </Link>
              </section>
            ))}
        </>
      )}
    </LocalBillingPage>
  );
}
