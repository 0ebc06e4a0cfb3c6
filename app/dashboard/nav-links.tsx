"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

const PAGES = [
  { href: "/dashboard", label: "Links" },
  { href: "/dashboard/tags", label: "Tags" },
  { href: "/dashboard/imports", label: "Import" },
  { href: "/dashboard/analytics", label: "Analytics" },
  { href: "/dashboard/domains", label: "Domains" },
  { href: "/dashboard/members", label: "Members" },
  { href: "/dashboard/settings/webhooks", label: "Webhooks" },
  { href: "/dashboard/apps", label: "Connected apps" },
  { href: "/dashboard/billing", label: "Billing" },
  { href: "/dashboard/settings", label: "API key & workspace" },
];

export function NavLinks() {
  const pathname = usePathname();
  // The tab whose address is the longest start of this page's (Webhooks sits under Settings' address).
  const currentHref = PAGES.map((page) => page.href)
    .filter((href) =>
      href === "/dashboard"
        ? pathname === "/dashboard" || pathname.startsWith("/dashboard/links")
        : pathname === href || pathname.startsWith(`${href}/`),
    )
    .sort((a, b) => b.length - a.length)[0];
  return (
    <nav aria-label="Dashboard" className="mx-auto max-w-6xl px-4">
      {/* On a phone the tabs wrap onto a second line rather than hide past the edge. */}
      <ul className="m-0 flex list-none flex-wrap gap-x-1 p-0">
        {PAGES.map((page) => {
          const current = page.href === currentHref;
          return (
            <li key={page.href}>
              <Link
                href={page.href}
                aria-current={current ? "page" : undefined}
                className={
                  "block whitespace-nowrap border-b-2 px-3 py-2 text-sm no-underline " +
                  (current
                    ? "border-accent font-semibold text-zinc-900 dark:text-white"
                    : "border-transparent text-zinc-700 hover:text-zinc-900 dark:text-zinc-300 dark:hover:text-white")
                }
              >
                {page.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
