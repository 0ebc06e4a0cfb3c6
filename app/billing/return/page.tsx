import type { Metadata } from "next";

export const metadata: Metadata = { title: "Billing — Permalink", robots: { index: false } };

type Query = { checkout?: string; portal?: string };

const MESSAGES: Record<string, string> = {
  complete: "Thank you. The subscription becomes active as soon as the payment is confirmed, usually within seconds.",
  canceled: "Checkout was cancelled and nothing was charged. You can start again at any time.",
  closed: "You have left the billing portal. Any change you made there applies within seconds.",
};

/** Where Stripe sends the customer back after checkout or the billing portal. */
export default async function BillingReturnPage({ searchParams }: { searchParams: Promise<Query> }) {
  const { checkout, portal } = await searchParams;
  const message = MESSAGES[checkout ?? portal ?? ""] ?? "Billing is handled by Stripe; this page is where it sends you back.";
  return (
    <main>
      <h1>Billing</h1>
      <p>{message}</p>
      <p>Whatever the state of the subscription, every existing link keeps resolving.</p>
    </main>
  );
}
