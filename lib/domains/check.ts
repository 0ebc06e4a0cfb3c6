import { clock } from "@/lib/clock";
import { config } from "@/lib/config";
import { publishInvalidation } from "@/lib/links/invalidation";
import { checkDns, type DnsFindings } from "./dns-check";
import { createDomainResolver } from "./dns-lookup";
import { recordDomainEvents } from "./events";
import { isApexHostname } from "./hostname";
import { routingTarget } from "./records";
import type { HostnameStatus } from "./status";
import type { DomainRow } from "./store";
import * as store from "./store";
import { tlsProvider, type TlsState } from "./tls";

/** A healthy domain is looked at again after this long; a failing one sooner, backing off from the first delay. */
const HEALTHY_RECHECK_MS = 6 * 60 * 60_000;
const FIRST_RETRY_MS = 60_000;
const MAX_RETRY_MS = 6 * 60 * 60_000;

/** The delay before the next check after `failures` failed checks in a row: 1, 2, 4, … minutes, at most six hours. */
export function retryDelayMs(failures: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, failures - 1), MAX_RETRY_MS);
}

/**
 * Looks at the domain's DNS and certificate now and records what was found. A claim whose
 * ownership and routing records are right becomes verified (once, and for good: the first
 * workspace to prove a hostname wins, decided by the database); a verified domain whose records
 * later go wrong is reported misconfigured and keeps resolving. null when the domain was removed
 * while it was being checked.
 */
export async function checkDomain(row: DomainRow): Promise<DomainRow | null> {
  const now = new Date(clock().now());
  const findings = await checkDns(
    {
      hostname: row.hostname,
      apex: isApexHostname(row.hostname),
      token: row.verificationToken,
      target: routingTarget(),
      issuers: config().TLS_CAA_ISSUERS,
    },
    createDomainResolver(config().DNS_RESOLVER),
  );
  const ownership = await settleOwnership(row, findings, now);
  const verified = ownership === "verified";
  const tls = await inspectTls(row, verified);
  const hostnameStatus: HostnameStatus =
    ownership === "taken" ? "taken" : !verified ? "pending" : findings.routing.ok ? "active" : "misconfigured";
  // Once verified, the TXT record may go: only routing matters (it is what visitors need).
  const dnsProblems = verified ? findings.routing.problems : [...findings.ownership.problems, ...findings.routing.problems];
  const validationErrors =
    ownership === "taken" ? [takenSentence(row.hostname)] : [...dnsProblems, ...findings.certificate.problems, ...tls.problems];
  const healthy = hostnameStatus === "active" && validationErrors.length === 0;
  const failedChecks = healthy ? 0 : row.failedChecks + 1;
  return store.recordCheck(
    row.id,
    {
      hostnameStatus,
      certStatus: findings.certificate.ok ? tls.certStatus : "failed",
      validationErrors,
      tlsRecords: tls.records,
      checkedAt: now,
      nextCheckAt: new Date(now.getTime() + (healthy ? HEALTHY_RECHECK_MS : retryDelayMs(failedChecks))),
      failedChecks,
    },
    recordDomainEvents,
  );
}

/** Verified already, verified by this check, taken by another workspace's proof, or still pending. */
async function settleOwnership(row: DomainRow, findings: DnsFindings, now: Date): Promise<"verified" | "taken" | "pending"> {
  if (row.verifiedAt) return "verified";
  if (!(findings.ownership.ok && findings.routing.ok))
    return (await store.isVerifiedElsewhere(row.hostname, row.id)) ? "taken" : "pending";
  const outcome = await store.markVerified(row.id, now);
  if (outcome === "taken") return "taken";
  // Every instance's resolution door learns at once that this host now serves short links.
  if (outcome === "verified") publishInvalidation({ kind: "domain", hostname: row.hostname });
  return "verified";
}

async function inspectTls(row: DomainRow, verified: boolean): Promise<TlsState> {
  try {
    return await tlsProvider().inspect(row.hostname, verified);
  } catch (error) {
    const message = error instanceof Error ? error.message : "The TLS provider failed.";
    return {
      certStatus: row.certStatus === "active" ? "active" : "pending",
      records: row.tlsRecords as TlsState["records"],
      problems: [message],
    };
  }
}

function takenSentence(hostname: string): string {
  return (
    `Another workspace proved ownership of ${hostname} first (its TXT record was right before this ` +
    `one's), so links on ${hostname} belong to that workspace.`
  );
}
