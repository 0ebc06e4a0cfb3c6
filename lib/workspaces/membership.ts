import { db } from "@/lib/db/client";
import type { Role } from "./types";

export async function findRole(workspaceId: string, userId: string): Promise<Role | null> {
  const membership = await db().membership.findUnique({
    where: { workspaceId_userId: { workspaceId, userId } },
    select: { role: true },
  });
  return membership?.role ?? null;
}
