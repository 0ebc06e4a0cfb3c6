import { clock } from "@/lib/clock";
import type { DbClient } from "@/lib/db/client";
import { newId } from "@/lib/db/random";
import { sendEmail } from "@/lib/email";
import { DomainError } from "@/lib/http/errors";
import { log } from "@/lib/log";
import { announceEvent } from "@/lib/webhooks/outbox";
import { findWorkspaceManagers } from "@/lib/workspaces/store";
import { randomUUID } from "node:crypto";
import { readCertificateExpiry } from "./certificate";
import { expiryEmail } from "./expiry-email";
import { WARNING_HORIZON_MS, warningReached } from "./lapse";
import { toDomainView } from "./present";
import { lookUpRegistrationExpiry } from "./rdap";
import type { DomainRow, ExpiryKind, ExpiryWarningRow } from "./store";
import * as store from "./store";

const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;
const HORIZON_MS = WARNING_HORIZON_MS;
/** Registrations change rarely: a registry is asked about a domain at most once a day. */
const REGISTRATION_EVERY_MS = DAY_MS;
/** A certificate is read daily, hourly once it is within the warnings' reach (a renewal is seen before a warning). */
const CERTIFICATE_EVERY_MS = DAY_MS;
const SOON_CERTIFICATE_EVERY_MS = HOUR_MS;

const LEASE = "domain-expiry";
/** Longer than a run can take (each lookup is bounded by its timeout): a crashed holder's lease expires by itself. */
const LEASE_MS = 20 * 60_000;
/** Domains looked up per run at most; the rest wait for the next run, the oldest readings first. */
const BATCH = 50;
const EMAIL_BATCH = 100;

export type DomainExpiryTotals = { ran: boolean; looked_up: number; warnings: number; emails: number };

/**
 * The expiry check of verified custom domains, on one instance at a time (a lease row): reads the
 * registrations (RDAP) and certificates (a handshake) that are due, decides the warnings the
 * stored dates have reached (each once: store.claimExpiryWarning, its webhook message in the same
 * transaction), then e-mails the owners and admins of each warning not yet sent. Nothing here
 * touches how codes resolve.
 */
export async function runDomainExpiryChecks(): Promise<DomainExpiryTotals> {
  const holder = randomUUID();
  const start = new Date(clock().now());
  if (!(await store.takeJobLease(LEASE, holder, start, new Date(start.getTime() + LEASE_MS))))
    return { ran: false, looked_up: 0, warnings: 0, emails: 0 };
  const totals = { ran: true, looked_up: 0, warnings: 0, emails: 0 };
  try {
    for (const row of await store.domainsDueExpiryCheck(dueBounds(start), BATCH)) {
      await refreshExpiry(row);
      totals.looked_up += 1;
    }
    totals.warnings = await decideWarnings();
  } finally {
    await store.releaseJobLease(LEASE, holder);
  }
  // After the lease is given back, as the DNS check does: a slow mail server must not hold the next run.
  totals.emails = await sendWarnings();
  return totals;
}

function dueBounds(now: Date): store.ExpiryDue {
  const ago = (ms: number) => new Date(now.getTime() - ms);
  return {
    registrationBefore: ago(REGISTRATION_EVERY_MS),
    certificateBefore: ago(CERTIFICATE_EVERY_MS),
    soonCertificateBefore: ago(SOON_CERTIFICATE_EVERY_MS),
    soonBefore: new Date(now.getTime() + HORIZON_MS),
  };
}

/** Looks up what is due of one domain and records it; a failed lookup keeps the last known date. */
async function refreshExpiry(row: DomainRow): Promise<void> {
  const now = clock().now();
  const due = dueBounds(new Date(now));
  const registrationDue = !row.registrationCheckedAt || row.registrationCheckedAt < due.registrationBefore;
  const certificateDue =
    !row.certificateCheckedAt ||
    row.certificateCheckedAt < due.certificateBefore ||
    (row.certificateCheckedAt < due.soonCertificateBefore &&
      !!row.certificateExpiresAt &&
      row.certificateExpiresAt < due.soonBefore);
  const [registration, certificate] = await Promise.all([
    registrationDue ? lookUpRegistrationExpiry(row.hostname) : undefined,
    certificateDue ? readCertificateExpiry(row.hostname) : undefined,
  ]);
  for (const [kind, reading] of [
    ["registration", registration],
    ["certificate", certificate],
  ] as const)
    if (reading?.problem)
      log().warn({ domain: row.id, kind, detail: reading.problem }, "a custom domain's expiry could not be read");
  const checkedAt = new Date(clock().now());
  await store.recordExpiry(row.id, {
    ...(registration && { registration: { expiresAt: registration.expiresAt, checkedAt } }),
    ...(certificate && { certificate: { expiresAt: certificate.expiresAt, checkedAt } }),
  });
}

/** Claims the warning each expiring date has reached; how many were new. */
async function decideWarnings(): Promise<number> {
  const now = new Date(clock().now());
  let claimed = 0;
  for (const row of await store.domainsExpiringBefore(new Date(now.getTime() + HORIZON_MS))) {
    for (const kind of ["registration", "certificate"] as const) {
      const expiresAt = kind === "registration" ? row.registrationExpiresAt : row.certificateExpiresAt;
      // A certificate is warned about only on a fresh reading: a renewal an hour old must not be missed.
      const checkedAt = kind === "registration" ? row.registrationCheckedAt : row.certificateCheckedAt;
      if (!expiresAt || !checkedAt) continue;
      if (kind === "certificate" && checkedAt.getTime() < now.getTime() - SOON_CERTIFICATE_EVERY_MS) continue;
      const days = warningReached(expiresAt.getTime() - now.getTime());
      if (days === null) continue;
      const warning = await store.claimExpiryWarning(
        { id: newId("dew"), domainId: row.id, kind, expiresAt, days, now },
        (client, domain) => announceExpiring(client, domain, kind, expiresAt, days),
      );
      if (warning) claimed += 1;
    }
  }
  return claimed;
}

/** The webhook message of a warning, in the transaction that decided it. */
async function announceExpiring(client: DbClient, domain: DomainRow, kind: ExpiryKind, expiresAt: Date, days: number) {
  await announceEvent(client, domain.workspaceId, "domain.expiring", {
    domain: toDomainView(domain),
    kind,
    expires_at: expiresAt.getTime(),
    days,
  });
}

/**
 * E-mails each warning not yet sent to the workspace's owners and admins: claimed first (one
 * conditional UPDATE, so one message whoever sends), given back when the mail server refuses, so
 * the next run tries again. How many went out.
 */
async function sendWarnings(): Promise<number> {
  let sent = 0;
  for (const warning of await store.unsentExpiryWarnings(new Date(clock().now()), EMAIL_BATCH))
    if (await sendWarning(warning)) sent += 1;
  return sent;
}

async function sendWarning(warning: ExpiryWarningRow): Promise<boolean> {
  const domain = await store.findDomain(warning.domainId);
  if (!domain) return false;
  const managers = await findWorkspaceManagers(domain.workspaceId);
  if (!managers || managers.addresses.length === 0) return false;
  const claimedAt = new Date(clock().now());
  if (!(await store.claimExpiryEmail(warning.id, claimedAt))) return false;
  try {
    await sendEmail(expiryEmail(toDomainView(domain), warning.kind, warning.expiresAt, claimedAt.getTime(), managers));
    return true;
  } catch (error) {
    await store.releaseExpiryEmail(warning.id, claimedAt);
    if (error instanceof DomainError)
      log().warn(
        { domain: domain.id, detail: error.message },
        "a custom domain's expiry warning was not sent; the next run tries again",
      );
    else log().error({ err: error, domain: domain.id }, "a custom domain's expiry warning failed; the next run tries again");
    return false;
  }
}
