import { db, type DbClient } from "@/lib/db/client";
import { newId } from "@/lib/db/random";

const LAST_USED_PRECISION_MS = 5 * 60 * 1000;

export type ClientRow = { id: string; name: string; clientUri: string | null; logoUri: string | null; redirectUris: string[] };

export async function insertClient(client: Omit<ClientRow, "id">): Promise<ClientRow & { createdAt: Date }> {
  return db().oAuthClient.create({ data: { id: newId("ocl"), ...client } });
}

export async function findClient(id: string): Promise<ClientRow | null> {
  return db().oAuthClient.findUnique({
    where: { id },
    select: { id: true, name: true, clientUri: true, logoUri: true, redirectUris: true },
  });
}

export type AuthorizationRequest = {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scopes: string[];
  resource: string;
  state: string | null;
  expiresAt: Date;
};

export async function insertAuthorization(request: AuthorizationRequest): Promise<string> {
  const { id } = await db().oAuthAuthorization.create({ data: { id: newId("oau"), ...request }, select: { id: true } });
  return id;
}

/** A request still waiting for the person's decision. */
export async function findPendingAuthorization(id: string, now: Date) {
  return db().oAuthAuthorization.findFirst({
    where: { id, userId: null, usedAt: null, expiresAt: { gt: now } },
    select: {
      id: true,
      redirectUri: true,
      scopes: true,
      state: true,
      client: { select: { id: true, name: true, clientUri: true, logoUri: true } },
    },
  });
}

/** Records the decision and the code's hash, once: false when the request was decided already or has expired. */
export async function decideAuthorization(
  id: string,
  decision: { userId: string; workspaceId: string; grantedScopes: string[]; codeHash: string; codeExpiresAt: Date },
  now: Date,
): Promise<boolean> {
  const { count } = await db().oAuthAuthorization.updateMany({
    where: { id, userId: null, usedAt: null, expiresAt: { gt: now } },
    data: {
      userId: decision.userId,
      workspaceId: decision.workspaceId,
      grantedScopes: decision.grantedScopes,
      codeHash: decision.codeHash,
      expiresAt: decision.codeExpiresAt,
    },
  });
  return count === 1;
}

/** A refused request: it can be decided no more. */
export async function closeAuthorization(id: string, now: Date): Promise<void> {
  await db().oAuthAuthorization.updateMany({ where: { id, userId: null, usedAt: null }, data: { usedAt: now } });
}

/**
 * The code's authorization row, locked for the rest of the transaction (SELECT … FOR UPDATE): of
 * two exchanges of one code, the second waits here until the first has committed, then reads its
 * used_at and grant_id, so a reuse (concurrent or later) always finds the grant to revoke.
 */
export async function lockAuthorizationByCode(tx: DbClient, codeHash: string) {
  const locked = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM oauth_authorizations WHERE code_hash = ${codeHash} FOR UPDATE`;
  return locked[0] ? tx.oAuthAuthorization.findUnique({ where: { id: locked[0].id } }) : null;
}

/** Spends the code (its row locked by lockAuthorizationByCode) and records the grant it gave. */
export async function spendCode(tx: DbClient, id: string, grantId: string, now: Date): Promise<void> {
  await tx.oAuthAuthorization.update({ where: { id }, data: { usedAt: now, grantId } });
}

export type GrantRow = { clientId: string; workspaceId: string; userId: string; scopes: string[]; resource: string };

export async function insertGrant(tx: DbClient, grant: GrantRow): Promise<string> {
  const { id } = await tx.oAuthGrant.create({ data: { id: newId("ogr"), ...grant }, select: { id: true } });
  return id;
}

export type TokenPair = { accessHash: string; accessExpiresAt: Date; refreshHash: string; refreshExpiresAt: Date };

export async function insertTokens(tx: DbClient, grantId: string, tokens: TokenPair): Promise<void> {
  await tx.oAuthToken.createMany({
    data: [
      { id: newId("otk"), grantId, kind: "access", tokenHash: tokens.accessHash, expiresAt: tokens.accessExpiresAt },
      { id: newId("otk"), grantId, kind: "refresh", tokenHash: tokens.refreshHash, expiresAt: tokens.refreshExpiresAt },
    ],
  });
}

const GRANT_OF_TOKEN = {
  id: true,
  kind: true,
  expiresAt: true,
  usedAt: true,
  grant: {
    select: {
      id: true,
      clientId: true,
      workspaceId: true,
      userId: true,
      scopes: true,
      resource: true,
      revokedAt: true,
      lastUsedAt: true,
    },
  },
} as const;

export async function findToken(tokenHash: string) {
  return db().oAuthToken.findUnique({ where: { tokenHash }, select: GRANT_OF_TOKEN });
}

/** Marks a refresh token used: true for the one caller that used it (a second use is a replay). */
export async function spendRefreshToken(tx: DbClient, id: string, now: Date): Promise<boolean> {
  const { count } = await tx.oAuthToken.updateMany({ where: { id, kind: "refresh", usedAt: null }, data: { usedAt: now } });
  return count === 1;
}

/** Ends a grant and so every token it gave, at once (each use reads revoked_at); false when it was ended already. */
export async function revokeGrant(client: DbClient, id: string, now: Date): Promise<boolean> {
  const { count } = await client.oAuthGrant.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now } });
  if (count === 1) await client.oAuthToken.deleteMany({ where: { grantId: id } });
  return count === 1;
}

/** Ends every live grant a person made on a workspace (they left or were removed); the number ended. */
export async function revokeGrantsOfPerson(tx: DbClient, workspaceId: string, userId: string, now: Date): Promise<number> {
  const live = await tx.oAuthGrant.findMany({ where: { workspaceId, userId, revokedAt: null }, select: { id: true } });
  for (const grant of live) await revokeGrant(tx, grant.id, now);
  return live.length;
}

/** Records a grant's use, at most once every few minutes. */
export async function recordGrantUse(id: string, lastUsedAt: Date | null, now: Date): Promise<void> {
  if (lastUsedAt && now.getTime() - lastUsedAt.getTime() < LAST_USED_PRECISION_MS) return;
  await db().oAuthGrant.update({ where: { id }, data: { lastUsedAt: now } });
}

/** The workspace's live grants (or one person's), newest first, with the app's name and the person's address. */
export async function listLiveGrants(workspaceId: string, userId: string | null) {
  return db().oAuthGrant.findMany({
    where: { workspaceId, revokedAt: null, ...(userId && { userId }) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 200,
    select: {
      id: true,
      scopes: true,
      createdAt: true,
      lastUsedAt: true,
      userId: true,
      client: { select: { id: true, name: true, clientUri: true } },
      user: { select: { email: true } },
      workspace: { select: { id: true, name: true } },
    },
  });
}

export async function findLiveGrant(workspaceId: string, id: string) {
  return db().oAuthGrant.findFirst({ where: { id, workspaceId, revokedAt: null }, select: { id: true, userId: true } });
}
