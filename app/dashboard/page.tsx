import Link from "next/link";
import { FramedTable } from "@/components/table";
import { CopyButton } from "@/components/ui/copy-button";
import { StatusBadge } from "@/components/ui/status-badge";
import { buttonClass, cardClass, inputClass, labelClass, mutedClass } from "@/components/ui/styles";
import { requireDashboard } from "@/lib/api/dashboard";
import { analyticsQuery } from "@/lib/analytics/schemas";
import { scanAnalytics } from "@/lib/analytics/service";
import { describeAccount } from "@/lib/billing/service";
import { browseLinks, browseLinksQuery, linkHosts, STATUS_FILTER_NAMES, verifiedDomains } from "@/lib/links/browse";
import { CreateLinkForm } from "./create-link-form";

const dateFormat = new Intl.DateTimeFormat("en-AU", { dateStyle: "medium", timeZone: "UTC" });

export default async function LinksPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { principal } = await requireDashboard("/dashboard");
  const query = browseLinksQuery.parse(
    Object.fromEntries(Object.entries(await searchParams).filter(([, value]) => typeof value === "string")),
  );
  const [{ links, nextCursor }, hosts, domains, account, scans] = await Promise.all([
    browseLinks(principal, query),
    linkHosts(principal),
    verifiedDomains(principal),
    describeAccount(principal),
    // The analytics capability's own count: scans (bots apart) per link over its default range, the last 30 days.
    scanAnalytics(principal, analyticsQuery.parse({ group_by: "link" })),
  ]);
  const scansByLink = new Map(scans.data.map((row) => [row.key, row.scans]));
  const archived = query.view === "archived";
  const filtered = Boolean(query.q || query.status || query.domain);
  const pageLink = (changes: Record<string, string | undefined>) => {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries({ ...query, cursor: undefined, ...changes }))
      if (value && !(key === "view" && value === "live")) params.set(key, value);
    const search = params.toString();
    return search ? `/dashboard?${search}` : "/dashboard";
  };
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-baseline justify-between gap-3">
        <h1 className="m-0 text-2xl font-bold">{archived ? "Archived links" : "Links"}</h1>
        <nav aria-label="Link views" className="flex gap-3 text-sm">
          <Link href={pageLink({ view: "live" })} aria-current={!archived ? "page" : undefined}>
            Live
          </Link>
          <Link href={pageLink({ view: "archived" })} aria-current={archived ? "page" : undefined}>
            Archived
          </Link>
        </nav>
      </div>

      {!archived && (
        <section aria-labelledby="create-heading" className={cardClass}>
          <h2 id="create-heading" className="mt-0 text-lg">
            Create a link
          </h2>
          {account.can.create_links ? (
            <CreateLinkForm domains={domains} />
          ) : (
            <p className={mutedClass}>
              {account.active
                ? "Creating links is not available to you here: your role does not allow it, or this cycle's allowance is spent (see Billing)."
                : "Creating links needs an active subscription: choose a plan in Billing. Your existing links keep resolving."}
            </p>
          )}
        </section>
      )}

      <form
        method="get"
        action="/dashboard"
        className="grid gap-3 sm:grid-cols-[1fr_auto_auto_auto] sm:items-end"
        role="search"
        aria-label="Search links"
      >
        {archived && <input type="hidden" name="view" value="archived" />}
        <div>
          <label htmlFor="search-q" className={labelClass}>
            Search slug or destination
          </label>
          <input id="search-q" name="q" defaultValue={query.q} className={inputClass} />
        </div>
        <div>
          <label htmlFor="search-status" className={labelClass}>
            Status
          </label>
          <select id="search-status" name="status" defaultValue={query.status ?? ""} className={inputClass}>
            <option value="">Any status</option>
            {STATUS_FILTER_NAMES.map((name) => (
              <option key={name} value={name}>
                {name[0]!.toUpperCase() + name.slice(1)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="search-domain" className={labelClass}>
            Domain
          </label>
          <select id="search-domain" name="domain" defaultValue={query.domain ?? ""} className={inputClass}>
            <option value="">Any domain</option>
            <option value="default">Default short domain</option>
            {hosts.map((host) => (
              <option key={host} value={host}>
                {host}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className={buttonClass.secondary}>
          Search
        </button>
      </form>

      {links.length === 0 ? (
        <EmptyState
          archived={archived}
          filtered={filtered}
          first={!query.cursor}
          clearHref={pageLink({ q: undefined, status: undefined, domain: undefined })}
        />
      ) : (
        <FramedTable
          caption={`${archived ? "Archived links" : "Links"}, most recent first`}
          headings={["Short link", "Destination", "Status", "Created", { label: "Scans (30 days)", numeric: true }]}
        >
          {links.map((link) => (
            <tr key={link.id}>
              <td className="whitespace-nowrap">
                <div className="flex items-center gap-2">
                  <Link href={`/dashboard/links/${link.id}`} className="font-medium">
                    {link.shortUrl.replace(/^https?:\/\//, "")}
                  </Link>
                  <CopyButton text={link.shortUrl} what={link.shortUrl} />
                </div>
              </td>
              <td className="max-w-xs truncate" title={link.destination}>
                {link.destination}
              </td>
              <td>
                <StatusBadge status={link.status} />
              </td>
              <td className="whitespace-nowrap">
                <time dateTime={link.createdAt.toISOString()}>{dateFormat.format(link.createdAt)}</time>
              </td>
              <td className="text-right tabular-nums">{scansByLink.get(link.id) ?? 0}</td>
            </tr>
          ))}
        </FramedTable>
      )}
      <nav aria-label="Pages" className="flex gap-3">
        {query.cursor && (
          <Link href={pageLink({})} className={buttonClass.secondary + " no-underline"}>
            First page
          </Link>
        )}
        {nextCursor && (
          <Link href={pageLink({ cursor: nextCursor })} className={buttonClass.secondary + " no-underline"}>
            Next page
          </Link>
        )}
      </nav>
    </div>
  );
}

function EmptyState({
  archived,
  filtered,
  first,
  clearHref,
}: {
  archived: boolean;
  filtered: boolean;
  first: boolean;
  clearHref: string;
}) {
  let text =
    "No links yet. Create your first one above: paste the address it should lead to, and it is ready to share and print.";
  if (filtered) text = "No link matches this search. Try fewer words or another filter.";
  else if (!first) text = "There are no more links.";
  else if (archived) text = "Nothing is archived. Archiving a link hides it from the main list; it keeps resolving.";
  return (
    <div className={cardClass + " text-center"}>
      <p className="m-0">{text}</p>
      {filtered && (
        <p className="mb-0">
          <Link href={clearHref}>Clear the search</Link>
        </p>
      )}
    </div>
  );
}
