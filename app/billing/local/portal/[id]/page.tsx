import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { localPortalView } from "@/lib/billing/local-pages";
import { LocalNotice } from "../../local-notice";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Billing portal (local billing) — Permalink", robots: { index: false } };

export default async function LocalPortalPage({ params }: { params: Promise<{ id: string }> }) {
  const view = await localPortalView((await params).id);
  if (!view) notFound();
  const { standing } = view;
  return (
    <main>
      <h1>Billing for {view.workspaceName}</h1>
      <LocalNotice />
      <p>
        Subscription: <strong>{standing.status}</strong>
        {view.plan && <> ({view.plan})</>}.{" "}
        {standing.active ? "Creating and editing links is on." : "Creating and editing links is off."} Existing links keep
        resolving either way.
      </p>
      {standing.cycle && (
        <p>
          This billing cycle runs from {standing.cycle.start.toISOString()} to {standing.cycle.end.toISOString()}.
        </p>
      )}
      {view.expired ? (
        <p>This portal page has expired. Open a new one with POST /api/billing/portal.</p>
      ) : view.billedByStripe ? (
        <p>This subscription is billed by Stripe; manage it in Stripe&apos;s billing portal.</p>
      ) : (
        <>
          <h2>{standing.active ? "Change plan" : "Subscribe"}</h2>
          {view.options.map((option) => (
            <form key={`${option.plan}:${option.interval}`} method="post" action={view.changeAction}>
              <input type="hidden" name="plan" value={option.plan} />
              <input type="hidden" name="interval" value={option.interval} />
              <button type="submit" disabled={option.current}>
                {option.current ? `${option.label} (current plan)` : option.label}
              </button>
            </form>
          ))}
          {standing.active && (
            <form method="post" action={view.cancelAction}>
              <h2>Cancel</h2>
              <p>Cancelling stops creating and editing at once; every existing link keeps resolving.</p>
              <button type="submit">Cancel subscription</button>
            </form>
          )}
        </>
      )}
    </main>
  );
}
