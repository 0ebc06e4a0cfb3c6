import { clock } from "@/lib/clock";
import { db, transaction } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import type { Prisma } from "@/lib/db/generated/client";
import { DESTINATION_COLUMNS, type DomainDestinations, SERVES_A_DESTINATION, servedDestinations } from "@/lib/domains/store";

export type EscrowKeyRow = Prisma.EscrowKeyGetPayload<object>;
export type NewEscrowKey = { id: string; publicKey: string; sealedPrivateKey: string | null };

/**
 * The current signing key, made so first when it must change: `configured` (ESCROW_SIGNING_KEY's)
 * becomes current if it is not (a key used before comes back as it was); without one, a current
 * key the service generated stays, else `generate()`'s is added. The key it replaces is retired,
 * never deleted. Instances starting together agree: the current row is locked, and the one current
 * key is a unique index, so a loser reads the winner's.
 */
export async function settleCurrentKey(configured: NewEscrowKey | null, generate: () => NewEscrowKey): Promise<EscrowKeyRow> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await transaction(async (tx) => {
        await tx.$queryRaw`SELECT id FROM escrow_keys WHERE retired_at IS NULL FOR UPDATE`;
        const current = await tx.escrowKey.findFirst({ where: { retiredAt: null } });
        if (configured ? current?.id === configured.id : current?.sealedPrivateKey) return current!;
        const now = new Date(clock().now());
        if (current) await tx.escrowKey.update({ where: { id: current.id }, data: { retiredAt: now } });
        const next = configured ?? generate();
        const before = await tx.escrowKey.findUnique({ where: { id: next.id } });
        if (before) return tx.escrowKey.update({ where: { id: next.id }, data: { retiredAt: null } });
        return tx.escrowKey.create({ data: { ...next, createdAt: now } });
      });
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= 3) throw error;
    }
  }
}

/** Every key snapshots were ever signed with, oldest first. */
export async function allKeys(): Promise<EscrowKeyRow[]> {
  return db().escrowKey.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
}

const CODE_COLUMNS = {
  id: true,
  host: true,
  slug: true,
  destination: true,
  rules: true,
  schedule: true,
  scanLimitAfter: true,
  scanLimitDestination: true,
  status: true,
  passwordHash: true,
  createdAt: true,
  archivedAt: true,
} as const satisfies Prisma.LinkSelect;

export type CodeRow = Prisma.LinkGetPayload<{ select: typeof CODE_COLUMNS }>;

export type CodeScope = { workspaceId: string } | { domainId: string } | "service";

/** A page of the codes issued in the scope, archived ones included, by id (keyset). */
export async function pageOfCodes(scope: CodeScope, limit: number, afterId?: string): Promise<CodeRow[]> {
  const where: Prisma.LinkWhereInput = scope === "service" ? {} : scope;
  return db().link.findMany({
    where: afterId === undefined ? where : { AND: [where, { id: { gt: afterId } }] },
    orderBy: { id: "asc" },
    take: limit,
    select: CODE_COLUMNS,
  });
}

/**
 * The scope's custom domains that send their root or unknown codes somewhere, by hostname, with the
 * destinations the doors serve (the domains' rule: a destination the re-check blocked is null).
 */
export async function domainDestinations(scope: CodeScope): Promise<({ hostname: string } & DomainDestinations)[]> {
  const where: Prisma.DomainWhereInput =
    scope === "service" ? {} : "domainId" in scope ? { id: scope.domainId } : { workspaceId: scope.workspaceId };
  const rows = await db().domain.findMany({
    where: { AND: [where, SERVES_A_DESTINATION] },
    orderBy: { hostname: "asc" },
    select: { hostname: true, ...DESTINATION_COLUMNS },
  });
  return rows.map((row) => ({ hostname: row.hostname, ...servedDestinations(row) }));
}

/** The domain, with whether its owners publish its snapshot. */
export async function findDomain(domainId: string) {
  return db().domain.findUnique({
    where: { id: domainId },
    select: {
      id: true,
      workspaceId: true,
      hostname: true,
      verifiedAt: true,
      escrowPublication: { select: { publishedAt: true } },
    },
  });
}

export async function setPublication(domainId: string, published: boolean): Promise<Date | null> {
  if (!published) {
    await db().escrowPublication.deleteMany({ where: { domainId } });
    return null;
  }
  const row = await db().escrowPublication.upsert({
    where: { domainId },
    create: { domainId, publishedAt: new Date(clock().now()) },
    update: {},
  });
  return row.publishedAt;
}
