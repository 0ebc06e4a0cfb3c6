import { db } from "@/lib/db/client";

/** Whether a verified custom domain has this hostname: one probe of the unique index on verified hostnames. */
export async function isVerifiedHostname(hostname: string): Promise<boolean> {
  return (await db().domain.findFirst({ where: { hostname, verifiedAt: { not: null } }, select: { id: true } })) !== null;
}
