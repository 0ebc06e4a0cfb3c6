import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { localCheckoutView } from "@/lib/billing/local-pages";
import { LocalNotice } from "../../local-notice";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Checkout (local billing) — Permalink", robots: { index: false } };

export default async function LocalCheckoutPage({ params }: { params: Promise<{ id: string }> }) {
  const view = await localCheckoutView((await params).id);
  if (!view) notFound();
  return (
    <main>
      <h1>Subscribe to {view.planName}</h1>
      <LocalNotice />
      <table>
        <tbody>
          <tr>
            <th>Workspace</th>
            <td>{view.workspaceName}</td>
          </tr>
          <tr>
            <th>Plan</th>
            <td>{view.planName}</td>
          </tr>
          <tr>
            <th>Price</th>
            <td>{view.price}</td>
          </tr>
          <tr>
            <th>New links</th>
            <td>{view.allowance}</td>
          </tr>
          <tr>
            <th>Included</th>
            <td>Custom domains, scan analytics, teammates</td>
          </tr>
        </tbody>
      </table>
      {view.state === "open" && (
        <form method="post" action={view.completeAction}>
          <button type="submit">Complete purchase</button>
        </form>
      )}
      {view.state === "complete" && <p>Purchase complete: the subscription is active. You can create and edit links now.</p>}
      {view.state === "expired" && <p>This checkout has expired. Start a new one with POST /api/billing/checkout.</p>}
    </main>
  );
}
