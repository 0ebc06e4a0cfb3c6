import { FramedTable } from "@/components/table";
import { CopyButton } from "@/components/ui/copy-button";
import { badgeClass, badgeTone, cardClass, mutedClass, noticeClass } from "@/components/ui/styles";
import { inCustomerWords } from "@/lib/api/customer-words";
import { clock } from "@/lib/clock";
import { daysLeft, registrableDomain, WARNING_HORIZON_MS } from "@/lib/domains/lapse";
import type { DomainView } from "@/lib/domains/schemas";
import { DomainActions, DomainDestinations } from "./domain-actions";

const dateFormat = new Intl.DateTimeFormat("en-AU", { dateStyle: "medium", timeZone: "UTC" });

const { good: GOOD, waiting: WAITING, bad: BAD } = badgeTone;

const HOSTNAME_BADGES: Record<DomainView["hostname_status"], { label: string; className: string }> = {
  pending: { label: "DNS: pending", className: WAITING },
  active: { label: "DNS: active", className: GOOD },
  misconfigured: { label: "DNS: misconfigured", className: WAITING },
  taken: { label: "DNS: taken by another workspace", className: BAD },
};

const CERT_BADGES: Record<DomainView["cert_status"], { label: string; className: string }> = {
  pending: { label: "Certificate: pending", className: WAITING },
  on_demand: { label: "Certificate: on first visit", className: GOOD },
  active: { label: "Certificate: active", className: GOOD },
  failed: { label: "Certificate: failed", className: BAD },
};

/** One domain as the API's Domain item describes it: status, what to do next, what the last check found, and the records to create. */
export function DomainCard({ domain, manages }: { domain: DomainView; manages: boolean }) {
  const headingId = `domain-${domain.id}`;
  return (
    <section aria-labelledby={headingId} className={cardClass + " space-y-4"} data-testid="domain">
      <div className="flex flex-wrap items-center gap-2">
        <h2 id={headingId} className="m-0 mr-2 break-all text-lg">
          {domain.hostname}
        </h2>
        <Badge {...(domain.verified ? { label: "Verified", className: GOOD } : { label: "Not verified", className: WAITING })} />
        <Badge {...HOSTNAME_BADGES[domain.hostname_status]} />
        <Badge {...CERT_BADGES[domain.cert_status]} />
      </div>
      <p className="mt-0 break-words" data-testid="domain-next">
        {inCustomerWords(domain.next)}
      </p>
      {domain.validation_errors.length > 0 && (
        <div>
          <h3 className="m-0 text-sm font-semibold">What the last check found</h3>
          <ul className="mb-0 mt-1 break-words text-sm" data-testid="domain-validation-errors">
            {domain.validation_errors.map((error) => (
              <li key={error}>{inCustomerWords(error)}</li>
            ))}
          </ul>
        </div>
      )}
      {domain.dns.length > 0 && (
        <div className="space-y-2">
          <h3 className="m-0 text-sm font-semibold">DNS records to create</h3>
          <FramedTable caption={`DNS records for ${domain.hostname}`} headings={["Type", "Name", "Value"]}>
            {domain.dns.map((record) => (
              <tr key={`${record.type} ${record.name} ${record.value}`}>
                <td className="font-mono">{record.type}</td>
                <RecordCell text={record.name} what={`the name of the ${record.type} record ${record.name}`} />
                <RecordCell text={record.value} what={`the value of the ${record.type} record ${record.value}`} />
              </tr>
            ))}
          </FramedTable>
        </div>
      )}
      <p className={mutedClass + " mt-0"}>Added {dateFormat.format(domain.created_at)}</p>
      {domain.verified && <DomainLapses domain={domain} />}
      {domain.verified && <BlockedDestinations domain={domain} />}
      {domain.verified && (
        <DomainDestinations
          id={domain.id}
          hostname={domain.hostname}
          root={domain.root_destination}
          notFound={domain.not_found_destination}
          manages={manages}
        />
      )}
      {manages && <DomainActions id={domain.id} hostname={domain.hostname} />}
    </section>
  );
}

/**
 * When the domain's registration and its certificate run out, and a warning in plain words when
 * either is within the warnings' reach (30 days). Only words: nothing here changes how links resolve.
 */
function DomainLapses({ domain }: { domain: DomainView }) {
  const now = clock().now();
  const registrable = registrableDomain(domain.hostname) ?? domain.hostname;
  const until = (at: number | null) => (at === null ? "not known yet" : `until ${dateFormat.format(at)}`);
  const near = (at: number | null): at is number => at !== null && at - now <= WARNING_HORIZON_MS;
  const inWords = (at: number) => {
    const days = daysLeft(at, now);
    return days === 0 ? "has run out" : `runs out ${days === 1 ? "within a day" : `in ${days} days`}`;
  };
  return (
    <div className="space-y-2" data-testid="domain-lapses">
      <dl className="m-0 grid gap-x-6 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
        <dt className="font-medium">Registration of {registrable}</dt>
        <dd className="m-0">{until(domain.registration_expires_at)}</dd>
        <dt className="font-medium">HTTPS certificate</dt>
        <dd className="m-0">{until(domain.certificate_expires_at)}</dd>
      </dl>
      {near(domain.registration_expires_at) && (
        <p role="status" className={noticeClass + " m-0"}>
          The registration of {registrable} {inWords(domain.registration_expires_at)} (
          {dateFormat.format(domain.registration_expires_at)}). Renew it with your registrar: once it runs out, visitors can no
          longer reach your links on {domain.hostname}. If you renewed it already, this goes away within a day.
        </p>
      )}
      {near(domain.certificate_expires_at) && (
        <p role="status" className={noticeClass + " m-0"}>
          The HTTPS certificate of {domain.hostname} {inWords(domain.certificate_expires_at)} (
          {dateFormat.format(domain.certificate_expires_at)}). It is normally renewed by itself long before that: check that the
          DNS records above are still right.
        </p>
      )}
    </div>
  );
}

/** A destination the background re-check stopped serving: what visitors get now, and how to choose another. */
function BlockedDestinations({ domain }: { domain: DomainView }) {
  const blocked = [
    [domain.root_destination_blocked, `${domain.hostname} itself`, domain.root_destination],
    [domain.not_found_destination_blocked, `short links ${domain.hostname} does not have`, domain.not_found_destination],
  ] as const;
  return blocked.map(
    ([reason, what, destination]) =>
      reason && (
        <p key={what} role="status" className={noticeClass + " m-0"}>
          Visitors of {what} are no longer sent to {destination}: a safety check found it harmful ({reason}). They see a warning
          page instead. Choose another address below; your short links keep working.
        </p>
      ),
  );
}

function Badge({ label, className }: { label: string; className: string }) {
  return <span className={`${badgeClass} ${className}`}>{label}</span>;
}

function RecordCell({ text, what }: { text: string; what: string }) {
  return (
    <td>
      <div className="flex flex-col items-start gap-1 sm:flex-row sm:items-center sm:gap-2">
        <code className="break-all">{text}</code>
        <CopyButton text={text} what={what} />
      </div>
    </td>
  );
}
