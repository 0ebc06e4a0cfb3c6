import Link from "next/link";
import type { ReactNode } from "react";
import { LocalNotice } from "./local-notice";

/** The frame of the local checkout and portal: the app's header and a card, as the dashboard draws them. */
export function LocalBillingPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="min-h-screen">
      <header className="border-b border-zinc-200 dark:border-zinc-800">
        <div className="mx-auto flex max-w-2xl items-center justify-between gap-3 px-5 py-4">
          <span className="text-lg font-semibold">Permalink</span>
          <Link href="/dashboard/billing" className="text-sm">
            Back to the dashboard
          </Link>
        </div>
      </header>
      <main className="mx-auto max-w-2xl space-y-6 px-5 py-10">
        <h1 className="m-0 text-2xl font-bold [overflow-wrap:anywhere]">{title}</h1>
        <LocalNotice />
        {children}
      </main>
    </div>
  );
}
