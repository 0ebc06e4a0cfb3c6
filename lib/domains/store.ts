import { db, type DbClient, transaction } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { Prisma } from "@/lib/db/generated/client";
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
  rootDestinationBlocked: true,
  notFoundDestinationBlocked: true,
  registrationExpiresAt: true,
  registrationCheckedAt: true,
  certificateExpiresAt: true,
  certificateCheckedAt: true,
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

/**
 * Where a verified domain sends its root and its unknown codes, as served: each destination, or null
 * (none set, or the re-check blocked it), and for each the reason the background re-check stopped
 * serving it (null: not blocked; else the visit gets the warning page a blocked link's visit gets).
 */
export type DomainDestinations = {
  root: string | null;
  notFound: string | null;
  rootBlocked: string | null;
  notFoundBlocked: string | null;
};

/** The columns a domain's own destinations are read from: each destination and the reason it was blocked. */
export const DESTINATION_COLUMNS = {
  rootDestination: true,
  notFoundDestination: true,
  rootDestinationBlocked: true,
  notFoundDestinationBlocked: true,
} as const satisfies Prisma.DomainSelect;

type DestinationColumns = Prisma.DomainGetPayload<{ select: typeof DESTINATION_COLUMNS }>;

/**
 * Which of a verified domain's own destinations are served: one that is set and that the re-check
 * has not blocked. The one rule for everything that reads those columns to act on them (the doors'
 * lookup, the escrow, the re-check's sample), so none serves or publishes a destination another
 * has stopped serving.
 */
export function servedDestinations(row: DestinationColumns): DomainDestinations {
  return {
    root: row.rootDestinationBlocked === null ? row.rootDestination : null,
    notFound: row.notFoundDestinationBlocked === null ? row.notFoundDestination : null,
    rootBlocked: row.rootDestination === null ? null : row.rootDestinationBlocked,
    notFoundBlocked: row.notFoundDestination === null ? null : row.notFoundDestinationBlocked,
  };
}

/** servedDestinations' rule as a query: the verified domains serving at least one destination of their own. */
export const SERVES_A_DESTINATION = {
  verifiedAt: { not: null },
  OR: [
    { rootDestination: { not: null }, rootDestinationBlocked: null },
    { notFoundDestination: { not: null }, notFoundDestinationBlocked: null },
  ],
} as const satisfies Prisma.DomainWhereInput;

/** The verified domain of this hostname, as the doors need it; null when none: one probe of the unique index on verified hostnames. */
export async function verifiedHostname(hostname: string): Promise<DomainDestinations | null> {
  const row = await db().domain.findFirst({ where: { hostname, verifiedAt: { not: null } }, select: DESTINATION_COLUMNS });
  return row && servedDestinations(row);
}

/** Which of a domain's destinations: its root's, or its unknown codes'. */
export type DomainDestinationKind = "root" | "not_found";

/** A verified domain the background re-check looks at: the destinations it serves. */
export type DomainDue = {
  id: string;
  hostname: string;
  rootDestination: string | null;
  notFoundDestination: string | null;
};

/**
 * Verified domains serving a destination of their own, the least recently checked first: the
 * re-check's sample, as for active links. Each comes with only the destinations it still serves.
 */
export async function domainsWithDestinationsDue(limit: number): Promise<DomainDue[]> {
  if (limit <= 0) return [];
  const rows = await db().domain.findMany({
    where: SERVES_A_DESTINATION,
    orderBy: [{ destinationsCheckedAt: { sort: "asc", nulls: "first" } }, { id: "asc" }],
    take: limit,
    select: { id: true, hostname: true, ...DESTINATION_COLUMNS },
  });
  return rows.map((row) => {
    const served = servedDestinations(row);
    return { id: row.id, hostname: row.hostname, rootDestination: served.root, notFoundDestination: served.notFound };
  });
}

/** The re-check looked at the domain's destinations now. */
export async function markDestinationsChecked(id: string, now: Date): Promise<void> {
  await db().domain.updateMany({ where: { id }, data: { destinationsCheckedAt: now } });
}

/**
 * Stops serving one of the domain's destinations for `reason`, only while the domain still sends
 * visitors to the destination the check looked at and it is not blocked already (a verdict about a
 * destination since replaced blocks nothing): one conditional UPDATE, so two runs block once. The
 * hostname when this call blocked it.
 */
export async function blockDomainDestination(
  id: string,
  kind: DomainDestinationKind,
  checkedDestination: string,
  reason: string,
  now: Date,
): Promise<string | null> {
  const [blocked] = await db().domain.updateManyAndReturn({
    where:
      kind === "root"
        ? { id, rootDestination: checkedDestination, rootDestinationBlocked: null }
        : { id, notFoundDestination: checkedDestination, notFoundDestinationBlocked: null },
    data: {
      ...(kind === "root" ? { rootDestinationBlocked: reason } : { notFoundDestinationBlocked: reason }),
      destinationsCheckedAt: now,
    },
    select: { hostname: true },
  });
  return blocked?.hostname ?? null;
}

/** A domain's root as it stands: its destination, and why the re-check stopped serving it (null: served). */
export type DomainRoot = { destination: string; blocked: string | null };

/** Where the domain's root goes (null: our plain page, or no such domain). */
export async function domainRoot(id: string): Promise<DomainRoot | null> {
  const row = await db().domain.findUnique({ where: { id }, select: { rootDestination: true, rootDestinationBlocked: true } });
  return row?.rootDestination ? { destination: row.rootDestination, blocked: row.rootDestinationBlocked } : null;
}

/**
 * Gives the domain's root this destination unless it has one (an import's `_root`): null when this
 * call set it, else the root it already had. One conditional UPDATE decides a race.
 */
export async function claimDomainRoot(id: string, destination: string): Promise<DomainRoot | null> {
  const { count } = await db().domain.updateMany({
    where: { id, rootDestination: null },
    data: { rootDestination: destination },
  });
  return count === 1 ? null : domainRoot(id);
}

/**
 * Writes the destinations named (undefined leaves one as it is); a destination set again, which has
 * just passed the gate, or removed is served again (its block is cleared). Null when the domain was removed meanwhile.
 */
export async function updateDomainDestinations(
  id: string,
  destinations: { rootDestination?: string | null; notFoundDestination?: string | null },
): Promise<DomainRow | null> {
  const data = {
    ...destinations,
    ...(destinations.rootDestination !== undefined && { rootDestinationBlocked: null }),
    ...(destinations.notFoundDestination !== undefined && { notFoundDestinationBlocked: null }),
  };
  const [updated] = await db().domain.updateManyAndReturn({ where: { id }, data, select: DOMAIN_COLUMNS });
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

/** What lapses: the registration of the hostname's registrable domain, or the certificate visitors get. */
export type ExpiryKind = "registration" | "certificate";

const EXPIRY_COLUMN: Record<ExpiryKind, Prisma.Sql> = {
  registration: Prisma.raw(`"registration_expires_at"`),
  certificate: Prisma.raw(`"certificate_expires_at"`),
};

/** When each lookup is due: a reading older than its bound is looked at again. */
export type ExpiryDue = {
  /** Registrations read before this (RDAP changes rarely: a day ago). */
  registrationBefore: Date;
  /** Certificates read before this (a day ago)… */
  certificateBefore: Date;
  /** …or before this (an hour ago) when the last reading lapses before `soonBefore`, so a renewal is seen before any warning. */
  soonCertificateBefore: Date;
  soonBefore: Date;
};

/** Verified domains with a reading due, those never read first, then the oldest readings. */
export function domainsDueExpiryCheck(due: ExpiryDue, limit: number): Promise<DomainRow[]> {
  return db().domain.findMany({
    where: {
      verifiedAt: { not: null },
      OR: [
        { registrationCheckedAt: null },
        { registrationCheckedAt: { lt: due.registrationBefore } },
        { certificateCheckedAt: null },
        { certificateCheckedAt: { lt: due.certificateBefore } },
        { certificateCheckedAt: { lt: due.soonCertificateBefore }, certificateExpiresAt: { lt: due.soonBefore } },
      ],
    },
    orderBy: [
      { registrationCheckedAt: { sort: "asc", nulls: "first" } },
      { certificateCheckedAt: { sort: "asc", nulls: "first" } },
    ],
    take: limit,
    select: DOMAIN_COLUMNS,
  });
}

/**
 * Writes what the lookups found: a reading that found a date replaces the stored one; one that
 * failed keeps the last known date and records only that it looked (so it is not asked again
 * within the day). Undefined leaves a kind as it is (it was not due).
 */
export async function recordExpiry(
  id: string,
  readings: Partial<Record<ExpiryKind, { expiresAt: Date | null; checkedAt: Date }>>,
): Promise<void> {
  const { registration, certificate } = readings;
  await db().domain.updateMany({
    where: { id },
    data: {
      ...(registration && {
        registrationCheckedAt: registration.checkedAt,
        ...(registration.expiresAt && { registrationExpiresAt: registration.expiresAt }),
      }),
      ...(certificate && {
        certificateCheckedAt: certificate.checkedAt,
        ...(certificate.expiresAt && { certificateExpiresAt: certificate.expiresAt }),
      }),
    },
  });
}

/** Verified domains whose registration or certificate lapses before `horizon` (or has lapsed). */
export function domainsExpiringBefore(horizon: Date): Promise<DomainRow[]> {
  return db().domain.findMany({
    where: {
      verifiedAt: { not: null },
      OR: [{ registrationExpiresAt: { lt: horizon } }, { certificateExpiresAt: { lt: horizon } }],
    },
    orderBy: { id: "asc" },
    select: DOMAIN_COLUMNS,
  });
}

export type ExpiryWarningRow = { id: string; domainId: string; kind: ExpiryKind; expiresAt: Date; days: number };

/**
 * Decides the warning `days` before this expiry date of the domain, once: one INSERT … SELECT …
 * ON CONFLICT DO NOTHING, so of any number of runs deciding it at once exactly one gets the row
 * (the unique key on domain, kind, date and days), and only while the domain is verified and its
 * stored date is still this one (a renewal read meanwhile makes it moot). `onClaimed` runs in the
 * same transaction (the webhook message), so the warning and its message commit together.
 */
export async function claimExpiryWarning(
  warning: ExpiryWarningRow & { now: Date },
  onClaimed: (client: DbClient, domain: DomainRow) => Promise<void>,
): Promise<ExpiryWarningRow | null> {
  return transaction(async (tx) => {
    const [claimed] = await tx.$queryRaw<ExpiryWarningRow[]>`
      INSERT INTO "domain_expiry_warnings" ("id", "domain_id", "kind", "expires_at", "days", "created_at")
      SELECT ${warning.id}, "id", ${warning.kind}, ${warning.expiresAt}, ${warning.days}, ${warning.now} FROM "domains"
      WHERE "id" = ${warning.domainId} AND "verified_at" IS NOT NULL AND ${EXPIRY_COLUMN[warning.kind]} = ${warning.expiresAt}
      ON CONFLICT ("domain_id", "kind", "expires_at", "days") DO NOTHING
      RETURNING "id", "domain_id" AS "domainId", "kind", "expires_at" AS "expiresAt", "days"`;
    if (!claimed) return null;
    const domain = await tx.domain.findUnique({ where: { id: warning.domainId }, select: DOMAIN_COLUMNS });
    if (domain) await onClaimed(tx, domain);
    return claimed;
  });
}

/**
 * Warnings whose e-mail has not gone out (just decided, or a send that failed), while the domain's
 * date is still the warned one and the lapse is less than a day past.
 */
export function unsentExpiryWarnings(now: Date, limit: number): Promise<ExpiryWarningRow[]> {
  const dayAgo = new Date(now.getTime() - 24 * 60 * 60_000);
  return db().$queryRaw<ExpiryWarningRow[]>`
    SELECT w."id", w."domain_id" AS "domainId", w."kind", w."expires_at" AS "expiresAt", w."days"
    FROM "domain_expiry_warnings" w JOIN "domains" d ON d."id" = w."domain_id"
    WHERE w."emailed_at" IS NULL AND w."expires_at" > ${dayAgo}
      AND w."expires_at" = CASE w."kind" WHEN 'registration' THEN d."registration_expires_at" ELSE d."certificate_expires_at" END
    ORDER BY w."created_at", w."id"
    LIMIT ${limit}`;
}

/** Claims a warning's e-mail: one conditional UPDATE, so one sender gets it. */
export async function claimExpiryEmail(id: string, now: Date): Promise<boolean> {
  const { count } = await db().domainExpiryWarning.updateMany({ where: { id, emailedAt: null }, data: { emailedAt: now } });
  return count === 1;
}

/** Gives the claim back after the message could not be sent (only this claim), so the next run tries again. */
export async function releaseExpiryEmail(id: string, claimedAt: Date): Promise<void> {
  await db().domainExpiryWarning.updateMany({ where: { id, emailedAt: claimedAt }, data: { emailedAt: null } });
}
