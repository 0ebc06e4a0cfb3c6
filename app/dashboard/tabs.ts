/** The dashboard's tabs, in the navigation's order. */
export const TABS = [
  { href: "/dashboard", label: "Links" },
  { href: "/dashboard/tags", label: "Tags" },
  { href: "/dashboard/imports", label: "Import" },
  { href: "/dashboard/analytics", label: "Analytics" },
  { href: "/dashboard/domains", label: "Domains" },
  { href: "/dashboard/members", label: "Members" },
  { href: "/dashboard/settings/webhooks", label: "Webhooks" },
  { href: "/dashboard/apps", label: "Apps" },
  { href: "/dashboard/billing", label: "Billing" },
  { href: "/dashboard/settings", label: "API key & workspace" },
] as const;

export type TabHref = (typeof TABS)[number]["href"];

/**
 * The tab a dashboard address belongs to: the tab whose address is the longest start of it
 * (Webhooks sits under Settings' address; a link's page belongs to Links); none for any other
 * address, one a form sent included.
 */
export function tabOf(pathname: string): TabHref | undefined {
  const matches = TABS.map((tab) => tab.href).filter((href) =>
    href === "/dashboard"
      ? pathname === "/dashboard" || pathname.startsWith("/dashboard/links")
      : pathname === href || pathname.startsWith(`${href}/`),
  );
  return matches.sort((a, b) => b.length - a.length)[0];
}
