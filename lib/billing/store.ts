import { clock } from "@/lib/clock";
import { db, type DbClient } from "@/lib/db/client";
import { isRecordId, newId } from "@/lib/db/random";
import type { Cycle } from "./cycles";
import type { PlanChoice } from "./plans";
import type { AccountState, BillingEvent, ProviderName } from "./types";

const ACCOUNT_COLUMNS = {
  provider: true,
  customerId: true,
  subscriptionId: true,
  status: true,
  plan: true,
  interval: true,
  currentPeriodStart: true,
  currentPeriodEnd: true,
  cancelAtPeriodEnd: true,
  pastDueSince: true,
  stateAsOf: true,
} as const;

export type BillingSubject = { id: string; name: string; kind: "personal" | "team" | "machine"; account: AccountState | null };

/** The workspace and its stored subscription state. */
export async function findBillingSubject(workspaceId: string): Promise<BillingSubject> {
  const workspace = await db().workspace.findUniqueOrThrow({
    where: { id: workspaceId },
    select: { id: true, name: true, kind: true, billingAccount: { select: ACCOUNT_COLUMNS } },
  });
  return { id: workspace.id, name: workspace.name, kind: workspace.kind, account: workspace.billingAccount };
}

export async function workspaceExists(workspaceId: string): Promise<boolean> {
  return (await db().workspace.count({ where: { id: workspaceId } })) === 1;
}

export async function findWorkspaceIdByCustomer(provider: ProviderName, customerId: string): Promise<string | null> {
  const account = await db().billingAccount.findUnique({
    where: { provider_customerId: { provider, customerId } },
    select: { workspaceId: true },
  });
  return account?.workspaceId ?? null;
}

export async function findWorkspaceIdBySubscription(provider: ProviderName, subscriptionId: string): Promise<string | null> {
  const account = await db().billingAccount.findFirst({ where: { provider, subscriptionId }, select: { workspaceId: true } });
  return account?.workspaceId ?? null;
}

/** Records the workspace's customer at a provider (the first checkout or portal visit creates it). */
export async function saveCustomer(workspaceId: string, provider: ProviderName, customerId: string): Promise<void> {
  const now = new Date(clock().now());
  await db().billingAccount.upsert({
    where: { workspaceId },
    create: { workspaceId, provider, customerId, createdAt: now, updatedAt: now },
    update: { provider, customerId, updatedAt: now },
  });
}

/** Marks the event processed; false when it already was (a replay). */
export async function recordEvent(tx: DbClient, event: BillingEvent): Promise<boolean> {
  const inserted = await tx.billingEvent.createMany({
    data: [
      {
        provider: event.provider,
        id: event.id,
        type: event.type,
        workspaceId: event.workspaceId,
        occurredAt: event.occurredAt,
        processedAt: new Date(clock().now()),
      },
    ],
    skipDuplicates: true,
  });
  return inserted.count === 1;
}

/** The workspace's state, locked until the transaction ends, so concurrent events apply one after the other. */
export async function lockAccount(tx: DbClient, workspaceId: string, provider: ProviderName): Promise<AccountState> {
  await tx.$executeRaw`
    INSERT INTO billing_accounts (workspace_id, provider) VALUES (${workspaceId}, ${provider}::"BillingProvider")
    ON CONFLICT (workspace_id) DO NOTHING`;
  await tx.$queryRaw`SELECT 1 FROM billing_accounts WHERE workspace_id = ${workspaceId} FOR UPDATE`;
  return tx.billingAccount.findUniqueOrThrow({ where: { workspaceId }, select: ACCOUNT_COLUMNS });
}

export async function saveAccountState(tx: DbClient, workspaceId: string, state: AccountState): Promise<void> {
  await tx.billingAccount.update({ where: { workspaceId }, data: { ...state, updatedAt: new Date(clock().now()) } });
}

/**
 * Spends one unit of the cycle's allowance if any is left. The conditional upsert is one
 * statement holding the row's lock, so concurrent creates on any number of instances can never
 * spend more than `cap`.
 */
export async function reserveUnit(tx: DbClient, workspaceId: string, cycleStart: Date, cap: number): Promise<boolean> {
  const rows = await tx.$queryRaw<{ used: number }[]>`
    INSERT INTO link_allowances AS allowance (workspace_id, cycle_start, used) VALUES (${workspaceId}, ${cycleStart}, 1)
    ON CONFLICT (workspace_id, cycle_start) DO UPDATE SET used = allowance.used + 1 WHERE allowance.used < ${cap}
    RETURNING used`;
  return rows.length === 1;
}

export async function releaseUnit(tx: DbClient, workspaceId: string, cycleStart: Date): Promise<void> {
  await tx.$executeRaw`UPDATE link_allowances SET used = used - 1 WHERE workspace_id = ${workspaceId} AND cycle_start = ${cycleStart}`;
}

export async function unitsUsed(workspaceId: string, cycleStart: Date): Promise<number> {
  const row = await db().linkAllowance.findUnique({
    where: { workspaceId_cycleStart: { workspaceId, cycleStart } },
    select: { used: true },
  });
  return row?.used ?? 0;
}

export async function countLinksCreated(workspaceId: string, cycle: Cycle): Promise<number> {
  return db().link.count({ where: { workspaceId, createdAt: { gte: cycle.start, lt: cycle.end } } });
}

export type LocalSession = {
  id: string;
  kind: "checkout" | "portal";
  workspaceId: string;
  plan: PlanChoice["plan"] | null;
  interval: PlanChoice["interval"] | null;
  expiresAt: Date;
  completedAt: Date | null;
};

const SESSION_ID_PREFIX = { checkout: "cs_local", portal: "bps_local" } as const;

export async function createLocalSession(session: Omit<LocalSession, "id" | "completedAt">): Promise<LocalSession> {
  return db().localBillingSession.create({
    data: { id: newId(SESSION_ID_PREFIX[session.kind]), ...session, createdAt: new Date(clock().now()) },
    select: { id: true, kind: true, workspaceId: true, plan: true, interval: true, expiresAt: true, completedAt: true },
  });
}

/** Null for an id of another shape too (the pages take it from their path), before it reaches a query. */
export async function findLocalSession(id: string, kind: LocalSession["kind"]): Promise<LocalSession | null> {
  if (!isRecordId(id)) return null;
  return db().localBillingSession.findFirst({
    where: { id, kind },
    select: { id: true, kind: true, workspaceId: true, plan: true, interval: true, expiresAt: true, completedAt: true },
  });
}

/** Marks a checkout completed; false when it already was, so a second submission buys nothing twice. */
export async function markLocalSessionCompleted(id: string): Promise<boolean> {
  const updated = await db().localBillingSession.updateMany({
    where: { id, completedAt: null },
    data: { completedAt: new Date(clock().now()) },
  });
  return updated.count === 1;
}
