/** The webhook endpoints a workspace subscribes: their rows, sealed secrets and retirement when their creator leaves. */
import { clock } from "@/lib/clock";
import { db, type DbClient } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";

const WEBHOOK_COLUMNS = {
  id: true,
  workspaceId: true,
  url: true,
  events: true,
  description: true,
  disabledAt: true,
  rotationDueAt: true,
  createdAt: true,
} as const satisfies Prisma.WebhookSelect;

export type WebhookRow = Prisma.WebhookGetPayload<{ select: typeof WEBHOOK_COLUMNS }>;

export async function insertWebhook(row: {
  id: string;
  workspaceId: string;
  url: string;
  events: string[];
  description: string | null;
  secretSealed: string;
  createdByUserId: string | null;
}): Promise<WebhookRow> {
  const now = new Date(clock().now());
  return db().webhook.create({
    data: { ...row, secretSeenByUserId: row.createdByUserId, createdAt: now, updatedAt: now },
    select: WEBHOOK_COLUMNS,
  });
}

export async function countWorkspaceWebhooks(workspaceId: string): Promise<number> {
  return db().webhook.count({ where: { workspaceId } });
}

export async function listWorkspaceWebhooks(workspaceId: string): Promise<WebhookRow[]> {
  return db().webhook.findMany({
    where: { workspaceId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: WEBHOOK_COLUMNS,
  });
}

export async function findWorkspaceWebhook(workspaceId: string, id: string): Promise<WebhookRow | null> {
  return db().webhook.findFirst({ where: { id, workspaceId }, select: WEBHOOK_COLUMNS });
}

export async function readSealedSecret(id: string): Promise<string> {
  return (await db().webhook.findUniqueOrThrow({ where: { id }, select: { secretSealed: true } })).secretSealed;
}

export async function updateWebhook(
  id: string,
  changes: { url?: string; events?: string[]; description?: string | null; disabled?: boolean; secretSealed?: string },
): Promise<WebhookRow> {
  const now = new Date(clock().now());
  const { disabled, ...columns } = changes;
  return db().webhook.update({
    where: { id },
    data: { ...columns, ...(disabled !== undefined && { disabledAt: disabled ? now : null }), updatedAt: now },
    select: WEBHOOK_COLUMNS,
  });
}

/** A new sealed secret, seen by `seenByUserId` alone: whoever saw the old one no longer needs it rotated. */
export async function replaceSecret(id: string, secretSealed: string, seenByUserId: string | null): Promise<WebhookRow> {
  const now = new Date(clock().now());
  return db().webhook.update({
    where: { id },
    data: { secretSealed, secretSeenByUserId: seenByUserId, rotationDueAt: null, updatedAt: now },
    select: WEBHOOK_COLUMNS,
  });
}

export type DepartedEndpoint = { id: string; url: string };

/**
 * What a person leaving the workspace's management takes with them, in the caller's transaction:
 * the live endpoints they created are disabled, and every endpoint whose current secret they saw
 * (created or last rotated) is flagged for rotation. Answers both lists, each endpoint once.
 */
export async function retireEndpointsOf(
  client: DbClient,
  { workspaceId, userId, now }: { workspaceId: string; userId: string; now: Date },
): Promise<{ disabled: DepartedEndpoint[]; rotationDue: DepartedEndpoint[] }> {
  const endpoint = { id: true, url: true } as const;
  const disabled = await client.webhook.updateManyAndReturn({
    where: { workspaceId, createdByUserId: userId, disabledAt: null },
    data: { disabledAt: now, updatedAt: now },
    select: endpoint,
  });
  const rotationDue = await client.webhook.updateManyAndReturn({
    where: { workspaceId, secretSeenByUserId: userId, rotationDueAt: null },
    data: { rotationDueAt: now, updatedAt: now },
    select: endpoint,
  });
  return { disabled, rotationDue };
}

/** The people who created the workspace's live endpoints (the members page says so beside them). */
export async function liveEndpointCreators(workspaceId: string): Promise<string[]> {
  const rows = await db().webhook.findMany({
    where: { workspaceId, disabledAt: null, createdByUserId: { not: null } },
    distinct: ["createdByUserId"],
    select: { createdByUserId: true },
  });
  return rows.flatMap((row) => (row.createdByUserId ? [row.createdByUserId] : []));
}

export async function deleteWebhook(id: string): Promise<void> {
  await db().webhook.deleteMany({ where: { id } });
}
