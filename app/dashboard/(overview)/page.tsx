import { Button } from "@/components/ui/button";
import { SelectField, TextField } from "@/components/ui/field";
import { FoldOnPhone } from "@/components/ui/fold-on-phone";
import { STATUS_WORDS } from "@/components/ui/status-labels";
import { badgeClass, badgeTone, buttonClass, cardClass, mutedClass } from "@/components/ui/styles";
import { LIST_SCAN_DAYS, listScanCounts } from "@/lib/analytics/service";
import { requireDashboard } from "@/lib/api/dashboard";
import { describeAccount } from "@/lib/billing/service";
import {
  browseLinks,
  browseLinksQuery,
  linkHosts,
  STATUS_FILTER_NAMES,
  STATUS_FILTERS,
  verifiedDomains,
  type LinkSort,
} from "@/lib/links/browse";
import { listTags } from "@/lib/tags/service";
import { listUtmTemplates } from "@/lib/utm/service";
import Link from "next/link";
import { viewerZone } from "../analytics/viewer-zone";
import { CreateLinkForm } from "../create-link-form";
import { dashboardTitle } from "../page-title";
import { LinksList } from "./links-list";

export const generateMetadata = () => dashboardTitle("Links");

const SORT_NAMES: Record<LinkSort, string> = { newest: "Newest first", oldest: "Oldest first", scans: "Most scans first" };

export default async function LinksPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { principal } = await requireDashboard("/dashboard");
  const query = browseLinksQuery.parse(
    Object.fromEntries(Object.entries(await searchParams).filter(([, value]) => typeof value === "string")),
  );
  const [{ links, nextCursor }, hosts, domains, account, { zone }, { tags }, { templates }] = await Promise.all([
    // Scans are the analytics capability's own count: bots apart, per link over its default range.
    listScanCounts(principal).then((scans) => browseLinks(principal, query, scans)),
    linkHosts(principal),
    verifiedDomains(principal),
    describeAccount(principal),
    viewerZone(),
    listTags(principal),
    listUtmTemplates(principal),
  ]);
  const created = new Intl.DateTimeFormat("en-AU", { dateStyle: "medium", timeStyle: "short", timeZone: zone });
  const archived = query.view === "archived";
  const filtered = Boolean(query.q || query.status || query.domain || query.tag);
  const pageLink = (changes: Record<string, string | undefined>) => {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries({ ...query, cursor: undefined, ...changes }))
      if (value && !(key === "view" && value === "live") && !(key === "sort" && value === "newest")) params.set(key, value);
    const search = params.toString();
    return search ? `/dashboard?${search}` : "/dashboard";
  };
  return (
    <div className="space-y-4 sm:space-y-6">
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
        <ImportExport className="hidden flex-wrap gap-3 text-sm sm:flex" />
      </div>

      {!archived && (
        <section aria-labelledby="create-heading" className={account.can.create_links ? undefined : cardClass}>
          {account.can.create_links ? (
            <FoldOnPhone label="Create a link" panelClassName={cardClass}>
              <h2 id="create-heading" className="mt-0 text-lg">
                Create a link
              </h2>
              <CreateLinkForm domains={domains} templates={templates} tagNames={tags.map((tag) => tag.name)} />
            </FoldOnPhone>
          ) : (
            <>
              <h2 id="create-heading" className="mt-0 text-lg">
                Create a link
              </h2>
              <p className={mutedClass}>
                {account.active
                  ? "Creating links is not available to you here: your role does not allow it, " +
                    "or this cycle's allowance is spent (see Billing)."
                  : "Creating links needs an active subscription: choose a plan in Billing. Your existing links keep resolving."}
              </p>
            </>
          )}
        </section>
      )}

      <FoldOnPhone label="Search links" startOpen={filtered}>
        <form
          method="get"
          action="/dashboard"
          className="grid gap-3 sm:grid-cols-[1fr_auto_auto_auto_auto] sm:items-end"
          role="search"
          aria-label="Search links"
        >
          {archived && <input type="hidden" name="view" value="archived" />}
          {query.sort !== "newest" && <input type="hidden" name="sort" value={query.sort} />}
          <TextField id="search-q" label="Search slug, title or destination" name="q" defaultValue={query.q} />
          <FilterSelect
            name="status"
            label="Status"
            value={query.status}
            options={[
              ["", "Any status"],
              ...STATUS_FILTER_NAMES.map((name) => [name, STATUS_WORDS[STATUS_FILTERS[name]].label] as const),
            ]}
          />
          <FilterSelect
            name="domain"
            label="Domain"
            value={query.domain}
            options={[["", "Any domain"], ["default", "Default short domain"], ...hosts.map((host) => [host, host] as const)]}
          />
          <FilterSelect
            name="tag"
            label="Tag"
            value={query.tag}
            options={[["", "Any tag"], ...tags.map((tag) => [tag.name, tag.name] as const)]}
          />
          <Button type="submit">Search</Button>
        </form>
      </FoldOnPhone>

      {links.length === 0 ? (
        <EmptyState
          archived={archived}
          filtered={filtered}
          first={!query.cursor}
          subscribed={account.active}
          clearHref={pageLink({ q: undefined, status: undefined, domain: undefined, tag: undefined })}
        />
      ) : (
        <>
          <nav aria-label="Order of the links" className="flex flex-wrap gap-x-3 gap-y-1 text-sm">
            <span className={mutedClass}>Order:</span>
            {(Object.keys(SORT_NAMES) as LinkSort[]).map((sort) => (
              <Link key={sort} href={pageLink({ sort })} aria-current={query.sort === sort ? "true" : undefined}>
                {SORT_NAMES[sort]}
              </Link>
            ))}
          </nav>
          <LinksList
            links={links.map((link) => ({
              id: link.id,
              shortUrl: link.shortUrl,
              destination: link.destination,
              status: link.status,
              createdAt: link.createdAt.toISOString(),
              created: created.format(link.createdAt),
              scans: link.scans,
              title: link.title,
              tags: link.tags,
            }))}
            caption={`${archived ? "Archived links" : "Links"}, ${SORT_NAMES[query.sort].toLowerCase()}`}
            archived={archived}
            canArchive={account.can.archive_links}
            scanDays={LIST_SCAN_DAYS}
            tagNames={tags.map((tag) => tag.name)}
          />
        </>
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
      {/* On a phone the list comes first: importing and exporting wait below it. */}
      <ImportExport className="flex flex-wrap gap-3 text-sm sm:hidden" />
    </div>
  );
}

/** Tags, import and export: at the top on a wide screen, under the list on a phone (CSS shows one of the two). */
/** One filter of the search form: a labelled select; the option of value "" means any. */
function FilterSelect({
  name,
  label,
  value,
  options,
}: {
  name: string;
  label: string;
  value: string | undefined;
  options: readonly (readonly [value: string, text: string])[];
}) {
  return (
    <SelectField id={`search-${name}`} label={label} name={name} defaultValue={value ?? ""}>
      {options.map(([optionValue, text]) => (
        <option key={optionValue} value={optionValue}>
          {text}
        </option>
      ))}
    </SelectField>
  );
}

function ImportExport({ className }: { className: string }) {
  return (
    <div className={className}>
      <Link href="/dashboard/tags">Tags and colours</Link>
      <Link href="/dashboard/imports">Import links</Link>
      <a href="/dashboard/links/export?format=csv" download>
        Export all (CSV)
      </a>
      <a href="/dashboard/links/export?format=json" download>
        Export all (JSON)
      </a>
    </div>
  );
}

function EmptyState({
  archived,
  filtered,
  first,
  subscribed,
  clearHref,
}: {
  archived: boolean;
  filtered: boolean;
  first: boolean;
  subscribed: boolean;
  clearHref: string;
}) {
  if (!archived && !filtered && first) return <FirstSteps subscribed={subscribed} />;
  let text = "There are no more links.";
  if (filtered) text = "No link matches this search. Try fewer words or another filter.";
  else if (archived && first) text = "Nothing is archived. Archiving a link hides it from the main list; it keeps resolving.";
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

/** A workspace without links: the three steps to a printed code, the ones already done marked. */
function FirstSteps({ subscribed }: { subscribed: boolean }) {
  const steps = [
    {
      title: "Choose a plan",
      done: subscribed,
      text: subscribed ? (
        "Done: this workspace has a subscription."
      ) : (
        <>
          Creating links needs a subscription: <Link href="/dashboard/billing">choose a plan in Billing</Link>.
        </>
      ),
    },
    {
      title: "Create your first link",
      done: false,
      text: "Paste the address it should lead to under Create a link above; it works at once.",
    },
    {
      title: "Download its QR code",
      done: false,
      text: "Open the link from this list, set its colours and size, and download a PNG or SVG to print.",
    },
  ];
  return (
    <section aria-labelledby="first-steps-heading" className={cardClass}>
      <h2 id="first-steps-heading" className="mt-0 text-lg">
        First steps
      </h2>
      <ol className="m-0 space-y-3 pl-5">
        {steps.map((step) => (
          <li key={step.title}>
            <strong>{step.title}</strong>
            {step.done && <span className={`ml-2 ${badgeClass} ${badgeTone.good}`}>Done</span>}
            <p className={mutedClass + " m-0"}>{step.text}</p>
          </li>
        ))}
      </ol>
    </section>
  );
}
