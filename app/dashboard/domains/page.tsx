import { FoldOnPhone } from "@/components/ui/fold-on-phone";
import { OneFieldForm } from "@/components/ui/one-field-form";
import { cardClass, mutedClass, noticeClass } from "@/components/ui/styles";
import { requireDashboard } from "@/lib/api/dashboard";
import { listDomains } from "@/lib/domains/service";
import { can } from "@/lib/workspaces/permissions";
import { dashboardTitle } from "../page-title";
import { addDomainAction } from "./actions";
import { DomainCard } from "./domain-card";
import { LiveRefresh } from "./live-refresh";

export const generateMetadata = () => dashboardTitle("Domains");

/**
 * How often the page asks the server again while a domain waits on DNS or its certificate (the background
 * check's first retries are a minute apart).
 */
const REFRESH_SECONDS = 30;

/**
 * The removal notice names a hostname from the address: only a hostname's letters are shown, so the address
 * cannot put a sentence on the page.
 */
const HOSTNAME_SHAPE = /^[a-z0-9.-]{1,253}$/;

export default async function DomainsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { principal } = await requireDashboard("/dashboard/domains");
  const [{ domains }, { removed }] = await Promise.all([listDomains(principal), searchParams]);
  const manages = can(principal, "domains.manage");
  const waiting = domains.some(
    (domain) =>
      domain.hostname_status === "pending" || domain.hostname_status === "misconfigured" || domain.cert_status === "pending",
  );
  return (
    <div className="space-y-6">
      <h1 className="m-0 text-2xl font-bold">Custom domains</h1>
      <p className={mutedClass}>
        Serve short links on your own hostname, such as go.example.com: add it, create the DNS records it lists, and it is checked
        for you. Links created on a domain resolve there for good.
      </p>
      {typeof removed === "string" && HOSTNAME_SHAPE.test(removed) && (
        <p role="status" className={noticeClass}>
          {removed} was removed from this workspace; its DNS records can go too.
        </p>
      )}
      {manages && (
        <section aria-labelledby="add-domain-heading" className={cardClass}>
          <FoldOnPhone label="Add a domain">
            <h2 id="add-domain-heading" className="mt-0 text-lg">
              Add a domain
            </h2>
            {/* Drawn afresh after a removal: its last "Added …" notice would be stale. */}
            <OneFieldForm
              key={typeof removed === "string" ? removed : "add"}
              action={addDomainAction}
              field={{
                id: "domain-hostname",
                name: "hostname",
                label: "Hostname",
                placeholder: "go.example.com",
                help: "A subdomain takes one CNAME record; we check the records as soon as it is added.",
              }}
              submit="Add domain"
              primary
            />
          </FoldOnPhone>
        </section>
      )}
      {domains.length === 0 ? (
        <p className={cardClass + " text-center"}>
          {manages
            ? "No custom domain yet. Add one above, then create the records it lists at your DNS provider."
            : "No custom domain yet; an owner or admin can add one."}
        </p>
      ) : (
        domains.map((domain) => <DomainCard key={domain.id} domain={domain} manages={manages} />)
      )}
      {waiting && (
        <p className={mutedClass}>
          <LiveRefresh seconds={REFRESH_SECONDS} />
          We check waiting domains by ourselves; this page shows what we find every {REFRESH_SECONDS} seconds.
        </p>
      )}
    </div>
  );
}
