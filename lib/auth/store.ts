import { clock } from "@/lib/clock";
import { config } from "@/lib/config";
import { db, type DbClient } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { newId } from "@/lib/db/random";
import { DomainError } from "@/lib/http/errors";
import { apiKeyHint, constantTimeEqual, generateApiKey, hashApiKey } from "./api-keys";

const LAST_USED_PRECISION_MS = 5 * 60 * 1000;

export type LiveKey = { id: string; workspaceId: string };

/**
 * The live key with this raw value, or null. Only the hash is looked up and compared. A key's
 * first authentication is recorded before the request goes on, in one statement that also
 * erases the key's sealed replay copy: once a key has been used, a payment resend never hands
 * it out again. Later uses are recorded lazily.
 */
export async function findLiveKey(rawKey: string): Promise<LiveKey | null> {
  const keyHash = hashApiKey(rawKey);
  const key = await db().apiKey.findUnique({
    where: { keyHash },
    select: { id: true, workspaceId: true, keyHash: true, revokedAt: true, lastUsedAt: true },
  });
  if (!key || key.revokedAt || !constantTimeEqual(key.keyHash, keyHash)) return null;
  if (key.lastUsedAt) void recordUse(key.id);
  else await recordFirstUse(key.id);
  return { id: key.id, workspaceId: key.workspaceId };
}

/**
 * Mints the workspace's one live key and returns the raw value, which is never stored.
 * The partial unique index on live keys makes a second concurrent claim fail, not duplicate.
 */
export async function claimApiKey(workspaceId: string, userId: string | null): Promise<string> {
  try {
    return await mintApiKey(workspaceId, userId);
  } catch (error) {
    if (isUniqueViolation(error)) throw keyAlreadyLive();
    throw error;
  }
}

/** Stores a new key's hash and returns the raw key; inside a transaction when given one. */
export async function mintApiKey(workspaceId: string, userId: string | null, client: DbClient = db()): Promise<string> {
  return (await insertKey(client, workspaceId, userId, null)).apiKey;
}

/**
 * Mints a new machine account's key and keeps its raw value sealed (by `seal`) until the key is
 * first used, revoked, or the replay window ends, so a resend of the payment can hand it back.
 */
export async function mintReplayableApiKey(
  workspaceId: string,
  client: DbClient,
  seal: (apiKey: string) => string,
): Promise<{ keyId: string; apiKey: string }> {
  return insertKey(client, workspaceId, null, seal);
}

/** The sealed copy of this key while it is live, unused and was minted after `mintedAfter`; null otherwise. */
export async function findReplaySeal(keyId: string, mintedAfter: Date): Promise<string | null> {
  const key = await db().apiKey.findFirst({
    where: { id: keyId, revokedAt: null, lastUsedAt: null, createdAt: { gt: mintedAfter } },
    select: { replaySealed: true },
  });
  return key?.replaySealed ?? null;
}

/** Erases the sealed copies of keys minted before `mintedBefore`: their replay window has passed. */
export async function forgetReplaySeals(mintedBefore: Date): Promise<void> {
  await db().apiKey.updateMany({
    where: { replaySealed: { not: null }, createdAt: { lt: mintedBefore } },
    data: { replaySealed: null },
  });
}

/**
 * Replaces the key that authenticated this request with a new one and returns the raw new key,
 * or null when that key is no longer live. The conditional revoke decides a race between two
 * rotations with the same key: the second finds it revoked (its row lock waits for the first).
 * The new key keeps the person who claimed the old one, so it leaves with them
 * (revokeKeyClaimedBy).
 */
export async function rotateApiKey(keyId: string): Promise<string | null> {
  return db().$transaction(async (tx) => {
    const [revoked] = await tx.apiKey.updateManyAndReturn({
      where: { id: keyId, revokedAt: null },
      data: { revokedAt: new Date(clock().now()), replaySealed: null },
      select: { workspaceId: true, createdByUserId: true },
    });
    return revoked ? (await insertKey(tx, revoked.workspaceId, revoked.createdByUserId, null)).apiKey : null;
  });
}

/**
 * Revokes the workspace's live key when this person claimed it (or claimed the key it was rotated
 * from), inside the caller's transaction: someone removed or demoted below admin takes no working
 * key with them. True when a key was revoked.
 */
export async function revokeKeyClaimedBy(
  client: DbClient,
  {
    workspaceId,
    claimedByUserId,
    revokedByUserId,
    now,
  }: { workspaceId: string; claimedByUserId: string; revokedByUserId: string; now: Date },
): Promise<boolean> {
  const { count } = await client.apiKey.updateMany({
    where: { workspaceId, createdByUserId: claimedByUserId, revokedAt: null },
    data: { revokedAt: now, revokedByUserId, replaySealed: null },
  });
  return count > 0;
}

/** The user who claimed the workspace's live key (or the key it was rotated from); null for none or a machine account's. */
export async function liveKeyClaimer(workspaceId: string): Promise<string | null> {
  const key = await db().apiKey.findFirst({ where: { workspaceId, revokedAt: null }, select: { createdByUserId: true } });
  return key?.createdByUserId ?? null;
}

/** The person who claimed this key (or the key it was rotated from); null for a machine account's. */
export async function claimerOfKey(keyId: string): Promise<string | null> {
  const key = await db().apiKey.findUnique({ where: { id: keyId }, select: { createdByUserId: true } });
  return key?.createdByUserId ?? null;
}

/**
 * Revokes the workspace's live key, if any, and mints a new one, in one transaction. Two
 * concurrent replacements cannot leave two live keys: the partial unique index refuses the
 * second insert (409).
 */
export async function replaceWorkspaceKey(workspaceId: string): Promise<string> {
  try {
    return await db().$transaction(async (tx) => {
      await tx.apiKey.updateMany({
        where: { workspaceId, revokedAt: null },
        data: { revokedAt: new Date(clock().now()), replaySealed: null },
      });
      return (await insertKey(tx, workspaceId, null, null)).apiKey;
    });
  } catch (error) {
    if (isUniqueViolation(error))
      throw new DomainError(
        "conflict",
        "Another key was issued for this account at the same moment; ask for a new nonce and sign again.",
      );
    throw error;
  }
}

/** Revokes the live key, recording who and when. Null when there was none. */
export async function revokeApiKey(workspaceId: string, userId: string): Promise<{ revokedAt: Date } | null> {
  const revokedAt = new Date(clock().now());
  const { count } = await db().apiKey.updateMany({
    where: { workspaceId, revokedAt: null },
    data: { revokedAt, revokedByUserId: userId, replaySealed: null },
  });
  return count === 0 ? null : { revokedAt };
}

export async function liveKeySummary(workspaceId: string) {
  return db().apiKey.findFirst({
    where: { workspaceId, revokedAt: null },
    select: { id: true, hint: true, createdAt: true, lastUsedAt: true },
  });
}

function keyAlreadyLive(): DomainError {
  return new DomainError(
    "conflict",
    "This workspace already has a live API key; an owner must revoke it (DELETE /api/billing/claim) before a new one can be claimed.",
  );
}

async function insertKey(
  client: DbClient,
  workspaceId: string,
  userId: string | null,
  seal: ((apiKey: string) => string) | null,
) {
  const apiKey = generateApiKey(config().API_KEY_PREFIX);
  const { id: keyId } = await client.apiKey.create({
    data: {
      id: newId("key"),
      workspaceId,
      keyHash: hashApiKey(apiKey),
      hint: apiKeyHint(apiKey, config().API_KEY_PREFIX),
      createdByUserId: userId,
      replaySealed: seal?.(apiKey) ?? null,
      // On the process clock, like the replay window it starts.
      createdAt: new Date(clock().now()),
    },
    select: { id: true },
  });
  return { keyId, apiKey };
}

/** Marks the key used and erases its sealed replay copy; concurrent first uses agree (the WHERE decides). */
async function recordFirstUse(keyId: string): Promise<void> {
  const now = new Date(clock().now());
  await db().apiKey.updateMany({ where: { id: keyId, lastUsedAt: null }, data: { lastUsedAt: now, replaySealed: null } });
}

async function recordUse(keyId: string): Promise<void> {
  const now = new Date(clock().now());
  await db()
    .apiKey.updateMany({
      where: { id: keyId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now.getTime() - LAST_USED_PRECISION_MS) } }] },
      data: { lastUsedAt: now },
    })
    .catch(() => undefined);
}
