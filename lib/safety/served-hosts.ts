import { db } from "@/lib/db/client";

/**
 * Whether a verified custom domain serves short links on this host: a destination there would
 * loop. One indexed query (the unique index on verified hostnames); the verdict cache in front
 * of the checker chain keeps it off the hot path. Read here rather than through lib/domains,
 * which sits above the safety rules it reuses.
 */
export async function isServedCustomDomain(hostname: string): Promise<boolean> {
  return (await db().domain.findFirst({ where: { hostname, verifiedAt: { not: null } }, select: { id: true } })) !== null;
}
