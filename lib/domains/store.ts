import { db, type DbClient, transaction } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import type { Prisma } from "@/lib/db/generated/client";
import { isRecordId } from "@/lib/db/random";
import type { DnsRecord } from "./records";
import type { CertStatus, HostnameStatus } from "./status";

const DOMAIN_COLUMNS = {
  id: true,
  workspaceId: true,
  hostname: true,
  verificationToken: true,
  verifiedAt: true,
  hostnameStatus: true,
  certStatus: true,
  validationErrors: true,
  checkedAt: true,
  nextCheckAt: true,
  failedChecks: true,
  noticeSentAt: true,
  tlsRecords: true,
  rootDestination: true,
  notFoundDestination: true,
  createdAt: true,
} as const satisfies Prisma.DomainSelect;

export type DomainRow = Prisma.DomainGetPayload<{ select: typeof DOMAIN_COLUMNS }>;

/** What one check decided, written in one statement. */
export type CheckResult = {
  hostnameStatus: HostnameStatus;
  certStatus: CertStatus;
  validationErrors: string[];
  tlsRecords: DnsRecord[];
  checkedAt: Date;
  nextCheckAt: Date;
  failedChecks: number;
};

/** null when this workspace already claimed the hostname (the unique index on workspace and hostname decides). */
export async function insertDomain(row: {
  id: string;
  workspaceId: string;
  hostname: string;
  verificationToken: string;
  createdAt: Date;
}): Promise<DomainRow | null> {
  const [inserted] = await db().domain.createManyAndReturn({
    data: [{ ...row, nextCheckAt: row.createdAt }],
    skipDuplicates: true,
    select: DOMAIN_COLUMNS,
  });
  return inserted ?? null;
}

export function listWorkspaceDomains(workspaceId: string): Promise<DomainRow[]> {
  return db().domain.findMany({
    where: { workspaceId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: DOMAIN_COLUMNS,
  });
}

/** null too for an id no record can have: ids also arrive from dashboard forms, which the route wrapper's path check never sees. */
export async function findWorkspaceDomain(workspaceId: string, id: string): Promise<DomainRow | null> {
  if (!isRecordId(id)) return null;
  return db().domain.findFirst({ where: { id, workspaceId }, select: DOMAIN_COLUMNS });
}

export function findDomain(id: string): Promise<DomainRow | null> {
  return db().domain.findUnique({ where: { id }, select: DOMAIN_COLUMNS });
}

/** Whether another workspace's claim on this hostname is verified. */
export async function isVerifiedElsewhere(hostname: string, id: string): Promise<boolean> {
  return (await db().domain.count({ where: { hostname, verifiedAt: { not: null }, id: { not: id } } })) > 0;
}

/**
 * Marks the claim verified, once. The partial unique index on verified hostnames decides a race
 * between workspaces proving the same hostname: the loser's update violates it ("taken").
 */
export async function markVerified(id: string, now: Date): Promise<"verified" | "already" | "taken"> {
  try {
    const { count } = await db().domain.updateMany({ where: { id, verifiedAt: null }, data: { verifiedAt: now } });
    return count === 1 ? "verified" : "already";
  } catch (error) {
    if (isUniqueViolation(error)) return "taken";
    throw error;
  }
}

/**
 * Writes what a check found; a check that finds the domain no longer misconfigured ends the
 * failure, so a later one is told again. null when the domain was removed while it was checked
 * (the check waits on DNS for seconds): there is nothing left to write to.
 */
export async function recordCheck(
  id: string,
  result: CheckResult,
  onRecorded: (client: DbClient, previousStatus: string, recorded: DomainRow) => Promise<void>,
): Promise<DomainRow | null> {
  const failureOver = result.hostnameStatus !== "misconfigured";
  return transaction(async (tx) => {
    // Locked, so of two checks recording at once the second sees the first's status as the previous one.
    const [previous] = await tx.$queryRaw<{ hostnameStatus: string }[]>`
      SELECT hostname_status AS "hostnameStatus" FROM domains WHERE id = ${id} FOR UPDATE`;
    if (!previous) return null;
    const [recorded] = await tx.domain.updateManyAndReturn({
      where: { id },
      data: { ...result, tlsRecords: result.tlsRecords, ...(failureOver && { noticeSentAt: null }) },
      select: DOMAIN_COLUMNS,
    });
    if (recorded) await onRecorded(tx, previous.hostnameStatus, recorded);
    return recorded ?? null;
  });
}

/**
 * Claims the one notice of this failure of a verified domain: a single UPDATE … WHERE
 * notice_sent_at IS NULL … RETURNING, so of any number of checks that find the domain broken at
 * once (the job on several instances, a verify) exactly one gets the row and sends; the others
 * get null. It also requires the domain to still be misconfigured, so a check that has meanwhile
 * found it repaired is not contradicted. Returns the row as claimed.
 */
export async function claimFailureNotice(id: string, now: Date): Promise<DomainRow | null> {
  const [claimed] = await db().domain.updateManyAndReturn({
    where: { id, noticeSentAt: null, verifiedAt: { not: null }, hostnameStatus: "misconfigured" },
    data: { noticeSentAt: now },
    select: DOMAIN_COLUMNS,
  });
  return claimed ?? null;
}

/** Gives a claim back after its message could not be sent, so the next check tries again; only this claim (its time), never a later one. */
export async function releaseFailureNotice(id: string, claimedAt: Date): Promise<void> {
  await db().domain.updateMany({ where: { id, noticeSentAt: claimedAt }, data: { noticeSentAt: null } });
}

/** Domains whose next check is due, most overdue first. */
export function dueDomains(now: Date, limit: number): Promise<DomainRow[]> {
  return db().domain.findMany({
    where: { nextCheckAt: { lte: now } },
    orderBy: { nextCheckAt: "asc" },
    take: limit,
    select: DOMAIN_COLUMNS,
  });
}

/** Where a verified domain sends its root and its unknown codes (null: the service's own page). */
export type DomainDestinations = { root: string | null; notFound: string | null };

/** The verified domain of this hostname, as the doors need it; null when none: one probe of the unique index on verified hostnames. */
export async function verifiedHostname(hostname: string): Promise<DomainDestinations | null> {
  const row = await db().domain.findFirst({
    where: { hostname, verifiedAt: { not: null } },
    select: { rootDestination: true, notFoundDestination: true },
  });
  return row && { root: row.rootDestination, notFound: row.notFoundDestination };
}

/** Where the domain's root goes (null: our plain page, or no such domain). */
export async function domainRoot(id: string): Promise<string | null> {
  return (await db().domain.findUnique({ where: { id }, select: { rootDestination: true } }))?.rootDestination ?? null;
}

/**
 * Gives the domain's root this destination unless it has one (an import's `_root`): null when this
 * call set it, else the destination it already had. One conditional UPDATE decides a race.
 */
export async function claimDomainRoot(id: string, destination: string): Promise<string | null> {
  const { count } = await db().domain.updateMany({
    where: { id, rootDestination: null },
    data: { rootDestination: destination },
  });
  return count === 1 ? null : domainRoot(id);
}

/** Writes the destinations named (undefined leaves one as it is); null when the domain was removed meanwhile. */
export async function updateDomainDestinations(
  id: string,
  destinations: { rootDestination?: string | null; notFoundDestination?: string | null },
): Promise<DomainRow | null> {
  const [updated] = await db().domain.updateManyAndReturn({ where: { id }, data: destinations, select: DOMAIN_COLUMNS });
  return updated ?? null;
}

/**
 * Takes the named job's lease for `holder` until `expiresAt`, only when it is free or expired: one
 * conditional upsert decides, so one instance at a time runs the job.
 */
export async function takeJobLease(name: string, holder: string, now: Date, expiresAt: Date): Promise<boolean> {
  const taken = await db().$queryRaw<{ holder: string }[]>`
    INSERT INTO "job_leases" ("name", "holder", "expires_at") VALUES (${name}, ${holder}, ${expiresAt})
    ON CONFLICT ("name") DO UPDATE SET "holder" = EXCLUDED."holder", "expires_at" = EXCLUDED."expires_at"
    WHERE "job_leases"."expires_at" <= ${now}
    RETURNING "holder"`;
  return taken.length === 1;
}

export async function releaseJobLease(name: string, holder: string): Promise<void> {
  await db().jobLease.deleteMany({ where: { name, holder } });
}

/** Deletes the domain's row in the caller's transaction; the count is 0 when a removal at the same moment deleted it already. */
export async function deleteDomain(client: DbClient, domainId: string): Promise<number> {
  const { count } = await client.domain.deleteMany({ where: { id: domainId } });
  return count;
}
