import { clock } from "@/lib/clock";
import { randomUUID } from "node:crypto";
import { checkDomain } from "./check";
import { noticeBrokenDomain } from "./failure-notice";
import type { DomainRow } from "./store";
import * as store from "./store";

const LEASE = "domain-checks";
/** Longer than a run can take (each check is bounded by DNS and provider timeouts): a crashed holder's lease expires by itself. */
const LEASE_MS = 10 * 60_000;
/** Domains checked per run at most; the rest wait for the next run, most overdue first. */
const BATCH = 100;

export type DomainCheckTotals = { ran: boolean; checked: number; verified: number; failing: number; notices: number };

/**
 * Checks the domains that are due, on one instance at a time: the run takes a lease row first,
 * and a run that finds it held does nothing. Each check reschedules its domain (back-off). Then
 * the owners of each verified domain found misconfigured are told, once per failure
 * (failure-notice.ts); after the lease is given back, since a slow mail server must not hold up
 * the next run, and the claim in the database keeps each notice single whoever sends it.
 */
export async function runDomainChecks(): Promise<DomainCheckTotals> {
  const holder = randomUUID();
  if (!(await takeLease(holder))) return { ran: false, checked: 0, verified: 0, failing: 0, notices: 0 };
  const totals = { ran: true, checked: 0, verified: 0, failing: 0, notices: 0 };
  const misconfigured: DomainRow[] = [];
  try {
    for (const due of await store.dueDomains(new Date(clock().now()), BATCH)) {
      const checked = await checkDomain(due);
      // Removed while it was checked: nothing to count or tell, and the run goes on.
      if (!checked) continue;
      totals.checked += 1;
      if (!due.verifiedAt && checked.verifiedAt) totals.verified += 1;
      if (checked.failedChecks > 0) totals.failing += 1;
      if (checked.hostnameStatus === "misconfigured") misconfigured.push(checked);
    }
  } finally {
    await releaseLease(holder);
  }
  for (const row of misconfigured) {
    if (await noticeBrokenDomain(row)) totals.notices += 1;
  }
  return totals;
}

/** One conditional upsert: the lease is taken only when free or expired, so two instances never both hold it. */
async function takeLease(holder: string): Promise<boolean> {
  const now = new Date(clock().now());
  const expiresAt = new Date(now.getTime() + LEASE_MS);
  return store.takeJobLease(LEASE, holder, now, expiresAt);
}

async function releaseLease(holder: string): Promise<void> {
  await store.releaseJobLease(LEASE, holder);
}
