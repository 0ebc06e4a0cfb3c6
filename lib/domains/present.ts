import { isApexHostname } from "./hostname";
import { ownershipRecord, routingRecords, routingTarget, type DnsRecord } from "./records";
import type { DomainView } from "./schemas";
import { asCertStatus, asHostnameStatus, type CertStatus, type HostnameStatus } from "./status";
import type { DomainRow } from "./store";

export function toDomainView(row: DomainRow): DomainView {
  const verified = row.verifiedAt !== null;
  const hostnameStatus = asHostnameStatus(row.hostnameStatus);
  const certStatus = asCertStatus(row.certStatus);
  const dns = [
    // Ownership is proven once; after that the TXT record may go (links stay on the domain for good).
    ...(verified ? [] : [ownershipRecord(row.hostname, row.verificationToken)]),
    ...routingRecords(row.hostname, isApexHostname(row.hostname), routingTarget()),
    ...(row.tlsRecords as DnsRecord[]),
  ];
  return {
    id: row.id,
    hostname: row.hostname,
    verified,
    cert_status: certStatus,
    hostname_status: hostnameStatus,
    validation_errors: row.validationErrors,
    created_at: row.createdAt.getTime(),
    dns,
    next: nextStep(row, hostnameStatus, certStatus, dns.length),
    root_destination: row.rootDestination,
    not_found_destination: row.notFoundDestination,
    root_destination_blocked: row.rootDestinationBlocked,
    not_found_destination_blocked: row.notFoundDestinationBlocked,
    registration_expires_at: row.registrationExpiresAt?.getTime() ?? null,
    certificate_expires_at: row.certificateExpiresAt?.getTime() ?? null,
  };
}

function nextStep(row: DomainRow, hostnameStatus: HostnameStatus, certStatus: CertStatus, records: number): string {
  const { hostname, id } = row;
  switch (hostnameStatus) {
    case "taken":
      return (
        `Another workspace proved ownership of ${hostname} first, so this claim cannot be verified: ` +
        `delete it (DELETE /api/domains/${id}).`
      );
    case "pending":
      return (
        `Add the ${records === 1 ? "record" : `${records} records`} below at your DNS provider, then ask ` +
        `for a check (POST /api/domains/${id}/verify); we also check by ourselves, less often as time ` +
        `passes.`
      );
    case "misconfigured":
      return (
        `Links on ${hostname} keep working for every visit that reaches us, but its DNS no longer points ` +
        `here: restore the records below (validation_errors says what changed).`
      );
    case "active":
      if (certStatus === "failed")
        return `Fix what validation_errors names so that ${hostname} can get its HTTPS certificate; links on it already resolve.`;
      if (certStatus === "pending")
        return `Waiting for the certificate of ${hostname}; meanwhile you can already create links on it (domain_id).`;
      return `Ready: create links on this domain (POST /api/links with domain_id ${id}).`;
  }
}
