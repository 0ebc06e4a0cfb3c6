/**
 * hostname_status: where the customer's DNS stands.
 * - pending: not verified yet; the records below are missing or wrong.
 * - active: verified, and the last check found the routing records right.
 * - misconfigured: verified, but the last check found the records wrong. Links keep resolving
 *   for every request that still reaches us (verification is never taken back).
 * - taken: another workspace proved ownership of this hostname first; this claim cannot verify.
 */
export const HOSTNAME_STATUSES = ["pending", "active", "misconfigured", "taken"] as const;
export type HostnameStatus = (typeof HOSTNAME_STATUSES)[number];

/**
 * cert_status: the HTTPS certificate for the hostname.
 * - pending: none yet: the domain is not verified, or the TLS provider has not issued it.
 * - on_demand: self-hosted behind Caddy: issued during the first HTTPS request (tls-ask allows it).
 * - active: the TLS provider (Vercel) reports the certificate issued.
 * - failed: it cannot be issued (a CAA record forbids our certificate authority, or the provider refused the name).
 */
export const CERT_STATUSES = ["pending", "on_demand", "active", "failed"] as const;
export type CertStatus = (typeof CERT_STATUSES)[number];

export function asHostnameStatus(value: string): HostnameStatus {
  return (HOSTNAME_STATUSES as readonly string[]).includes(value) ? (value as HostnameStatus) : "pending";
}

export function asCertStatus(value: string): CertStatus {
  return (CERT_STATUSES as readonly string[]).includes(value) ? (value as CertStatus) : "pending";
}
