import { Button } from "@/components/ui/button";
import { cardClass, mutedClass, noticeClass } from "@/components/ui/styles";
import { localCheckoutView } from "@/lib/billing/local-pages";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { LocalBillingPage } from "../../local-page";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Checkout (local billing) — Permalink", robots: { index: false } };

export default async function LocalCheckoutPage({ params }: { params: Promise<{ id: string }> }) {
  const view = await localCheckoutView((await params).id);
  if (!view) notFound();
  const rows = [
    ["Workspace", view.workspaceName],
    ["Plan", view.planName],
    ["Price", view.price],
    ["New links", view.allowance],
    ["Included", "Custom domains, scan analytics, teammates"],
  ];
  return (
    <LocalBillingPage title={`Subscribe to ${view.planName}`}>
      <dl className={cardClass + " m-0 grid gap-x-6 gap-y-2 sm:grid-cols-[auto_1fr]"}>
        {rows.map(([term, value]) => (
          <div key={term} className="contents">
            <dt className="font-medium">{term}</dt>
            <dd className="m-0">{value}</dd>
          </div>
        ))}
      </dl>
      {view.state === "open" && (
        <form method="post" action={view.completeAction} className="flex flex-wrap items-center gap-3">
          <Button variant="primary" type="submit">
            Complete purchase
          </Button>
          <Link href="/dashboard/billing">Cancel and return to Billing</Link>
        </form>
      )}
      {view.state === "complete" && (
        <div role="status" className={noticeClass + " space-y-2"}>
          <p className="m-0">Purchase complete: the subscription is active. You can create and edit links now.</p>
          <Link href="/dashboard/billing">Return to Billing</Link>
        </div>
      )}
      {view.state === "expired" && (
        <p className={mutedClass}>This checkout has expired. Start a new one from Billing in the dashboard.</p>
      )}
    </LocalBillingPage>
  );
}
