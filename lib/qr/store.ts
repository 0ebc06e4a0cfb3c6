import { clock } from "@/lib/clock";
import { db } from "@/lib/db/client";
import type { QrDesign, QrLevel } from "./schemas";

/** Whose design: a link's own, or the default of a workspace's links. */
export type DesignOwner = { kind: "link"; linkId: string } | { kind: "workspace"; workspaceId: string };

const DESIGN_COLUMNS = { size: true, margin: true, fg: true, bg: true, level: true, logo: true } as const;

type DesignRow = { size: number; margin: number; fg: string; bg: string; level: string | null; logo: boolean };

/**
 * Saves the owner's design, replacing the previous one; Prisma's upsert is one INSERT … ON CONFLICT DO
 * UPDATE, so concurrent saves leave one whole design, the last.
 */
export async function saveDesign(owner: DesignOwner, design: QrDesign): Promise<QrDesign> {
  const row = { ...design, updatedAt: new Date(clock().now()) };
  const saved =
    owner.kind === "link"
      ? await db().linkQrDesign.upsert({
          where: { linkId: owner.linkId },
          create: { linkId: owner.linkId, ...row },
          update: row,
          select: DESIGN_COLUMNS,
        })
      : await db().workspaceQrDesign.upsert({
          where: { workspaceId: owner.workspaceId },
          create: { workspaceId: owner.workspaceId, ...row },
          update: row,
          select: DESIGN_COLUMNS,
        });
  return toDesign(saved);
}

export async function findDesign(owner: DesignOwner): Promise<QrDesign | null> {
  const row =
    owner.kind === "link"
      ? await db().linkQrDesign.findUnique({ where: { linkId: owner.linkId }, select: DESIGN_COLUMNS })
      : await db().workspaceQrDesign.findUnique({ where: { workspaceId: owner.workspaceId }, select: DESIGN_COLUMNS });
  return row && toDesign(row);
}

export async function removeLinkDesign(linkId: string): Promise<void> {
  await db().linkQrDesign.deleteMany({ where: { linkId } });
}

/** Every value was validated by the design's schema before it was written. */
function toDesign(row: DesignRow): QrDesign {
  return { ...row, level: row.level as QrLevel | null };
}
