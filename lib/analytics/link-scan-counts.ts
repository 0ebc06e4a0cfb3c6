import { db } from "@/lib/db/client";

/** Scans per link since `since`, for the links named (absent: none). One grouped query over the (link_id, occurred_at) index. */
export async function scanCountsSince(linkIds: readonly string[], since: Date): Promise<Map<string, number>> {
  if (linkIds.length === 0) return new Map();
  const groups = await db().scanEvent.groupBy({
    by: ["linkId"],
    where: { linkId: { in: [...linkIds] }, occurredAt: { gte: since } },
    _count: { _all: true },
  });
  return new Map(groups.map((group) => [group.linkId, group._count._all]));
}
