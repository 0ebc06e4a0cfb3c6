"use client";

import Link, { useLinkStatus } from "next/link";
import { usePathname } from "next/navigation";
import { TABS, tabOf } from "./tabs";

export function NavLinks() {
  const pathname = usePathname();
  const currentHref = tabOf(pathname);
  return (
    <nav aria-label="Dashboard" className="mx-auto max-w-6xl px-4">
      {/* On a phone the tabs wrap onto a second line rather than hide past the edge. */}
      <ul className="m-0 flex list-none flex-wrap gap-x-1 p-0">
        {TABS.map((page) => {
          const current = page.href === currentHref;
          return (
            <li key={page.href}>
              <Link
                href={page.href}
                aria-current={current ? "page" : undefined}
                className={
                  "block whitespace-nowrap border-b-2 px-2 py-2 text-sm no-underline sm:px-3 " +
                  (current
                    ? "border-accent font-semibold text-zinc-900 dark:text-white"
                    : "border-transparent text-zinc-700 hover:text-zinc-900 dark:text-zinc-300 dark:hover:text-white")
                }
              >
                {page.label}
                <PendingTab />
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

/**
 * While the tab's page is on its way (a slow server, or a page that must find its subject before
 * it may answer 404, so has no loading.tsx), the tab pulses and says so to screen readers: a click
 * never looks dead.
 */
function PendingTab() {
  const { pending } = useLinkStatus();
  if (!pending) return null;
  return (
    <>
      <span aria-hidden="true" className="ml-1.5 inline-block h-2 w-2 animate-pulse rounded-full bg-accent align-middle" />
      <span role="status" className="sr-only">
        Loading…
      </span>
    </>
  );
}
