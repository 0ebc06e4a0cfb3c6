import { db } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import type { Prisma } from "@/lib/db/generated/client";
import type { DnsRecord } from "./records";
import type { CertStatus, HostnameStatus } from "./status";

const DOMAIN_COLUMNS = {
  id: true, workspaceId: true, hostname: true, verificationToken: true, verifiedAt: true, hostnameStatus: true, certStatus: true,
  validationErrors: true, checkedAt: true, nextCheckAt: true, failedChecks: true, noticeSentAt: true, tlsRecords: true, createdAt: true,
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
export async function insertDomain(row: { id: string; workspaceId: string; hostname: string; verificationToken: string; createdAt: Date }): Promise<DomainRow | null> {
  const [inserted] = await db().domain.createManyAndReturn({
    data: [{ ...row, nextCheckAt: row.createdAt }],
    skipDuplicates: true,
    select: DOMAIN_COLUMNS,
  });
  return inserted ?? null;
}

export function listWorkspaceDomains(workspaceId: string): Promise<DomainRow[]> {
  return db().domain.findMany({ where: { workspaceId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], select: DOMAIN_COLUMNS });
}

export function findWorkspaceDomain(workspaceId: string, id: string): Promise<DomainRow | null> {
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

export function recordCheck(id: string, result: CheckResult): Promise<DomainRow> {
  return db().domain.update({ where: { id }, data: { ...result, tlsRecords: result.tlsRecords }, select: DOMAIN_COLUMNS });
}

/** Domains whose next check is due, most overdue first. */
export function dueDomains(now: Date, limit: number): Promise<DomainRow[]> {
  return db().domain.findMany({ where: { nextCheckAt: { lte: now } }, orderBy: { nextCheckAt: "asc" }, take: limit, select: DOMAIN_COLUMNS });
}
