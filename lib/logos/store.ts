import { clock } from "@/lib/clock";
import { db } from "@/lib/db/client";
import { createHash } from "node:crypto";
import type { EncodedLogo } from "./decode";

/** Whose logo: a link's own, or the default of a workspace's links. */
export type LogoOwner = { kind: "link"; linkId: string } | { kind: "workspace"; workspaceId: string };

/** What is known about a stored logo without its bytes; `sha256` (hex) is its ETag. */
export type LogoInfo = { contentType: string; width: number; height: number; bytes: number; sha256: string; updatedAt: Date };

export type StoredLogo = LogoInfo & { data: Buffer };

/**
 * Where logos live. PostgreSQL (bytea) here, so a deployment needs nothing else; an
 * S3-compatible store could implement the same four operations.
 */
export interface LogoStorage {
  /** Stores the logo, replacing the owner's previous one. */
  save(owner: LogoOwner, logo: EncodedLogo): Promise<LogoInfo>;
  describe(owner: LogoOwner): Promise<LogoInfo | null>;
  load(owner: LogoOwner): Promise<StoredLogo | null>;
  /** True when there was a logo to remove. */
  remove(owner: LogoOwner): Promise<boolean>;
}

const INFO_COLUMNS = { contentType: true, width: true, height: true, bytes: true, sha256: true, updatedAt: true } as const;

/** The logo tables in PostgreSQL: one row per owner, replaced in one upsert statement. */
const postgresLogoStorage: LogoStorage = {
  async save(owner, logo) {
    const row = {
      data: new Uint8Array(logo.data),
      contentType: "image/png",
      width: logo.width,
      height: logo.height,
      bytes: logo.data.length,
      sha256: createHash("sha256").update(logo.data).digest("hex"),
      updatedAt: new Date(clock().now()),
    };
    // Prisma runs these as INSERT ... ON CONFLICT DO UPDATE: concurrent uploads leave one whole logo, the last.
    return owner.kind === "link"
      ? db().linkLogo.upsert({
          where: { linkId: owner.linkId },
          create: { linkId: owner.linkId, ...row },
          update: row,
          select: INFO_COLUMNS,
        })
      : db().workspaceLogo.upsert({
          where: { workspaceId: owner.workspaceId },
          create: { workspaceId: owner.workspaceId, ...row },
          update: row,
          select: INFO_COLUMNS,
        });
  },

  async describe(owner) {
    return owner.kind === "link"
      ? db().linkLogo.findUnique({ where: { linkId: owner.linkId }, select: INFO_COLUMNS })
      : db().workspaceLogo.findUnique({ where: { workspaceId: owner.workspaceId }, select: INFO_COLUMNS });
  },

  async load(owner) {
    const select = { ...INFO_COLUMNS, data: true } as const;
    const row =
      owner.kind === "link"
        ? await db().linkLogo.findUnique({ where: { linkId: owner.linkId }, select })
        : await db().workspaceLogo.findUnique({ where: { workspaceId: owner.workspaceId }, select });
    return row ? { ...row, data: Buffer.from(row.data) } : null;
  },

  async remove(owner) {
    const { count } =
      owner.kind === "link"
        ? await db().linkLogo.deleteMany({ where: { linkId: owner.linkId } })
        : await db().workspaceLogo.deleteMany({ where: { workspaceId: owner.workspaceId } });
    return count > 0;
  },
};

/** The store this deployment keeps logos in. */
export const logoStorage: LogoStorage = postgresLogoStorage;
