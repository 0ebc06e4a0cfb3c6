import { clock } from "@/lib/clock";
import { config } from "@/lib/config";
import { db, type DbClient } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { newId } from "@/lib/db/random";
import { DomainError } from "@/lib/http/errors";
import { apiKeyHint, constantTimeEqual, generateApiKey, hashApiKey } from "./api-keys";

const LAST_USED_PRECISION_MS = 5 * 60 * 1000;

export type LiveKey = { id: string; workspaceId: string };

/** The live key with this raw value, or null. Only the hash is looked up and compared. */
export async function findLiveKey(rawKey: string): Promise<LiveKey | null> {
  const keyHash = hashApiKey(rawKey);
  const key = await db().apiKey.findUnique({
    where: { keyHash },
    select: { id: true, workspaceId: true, keyHash: true, revokedAt: true },
  });
  if (!key || key.revokedAt || !constantTimeEqual(key.keyHash, keyHash)) return null;
  void recordUse(key.id);
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
  const rawKey = generateApiKey(config().API_KEY_PREFIX);
  await client.apiKey.create({
    data: {
      id: newId("key"),
      workspaceId,
      keyHash: hashApiKey(rawKey),
      hint: apiKeyHint(rawKey, config().API_KEY_PREFIX),
      createdByUserId: userId,
    },
  });
  return rawKey;
}

/** True while the key with this raw value exists and is not revoked; unlike findLiveKey, records no use. */
export async function isLiveKey(rawKey: string): Promise<boolean> {
  return (await db().apiKey.count({ where: { keyHash: hashApiKey(rawKey), revokedAt: null } })) > 0;
}

/** Revokes the live key, recording who and when. Null when there was none. */
export async function revokeApiKey(workspaceId: string, userId: string): Promise<{ revokedAt: Date } | null> {
  const revokedAt = new Date(clock().now());
  const { count } = await db().apiKey.updateMany({
    where: { workspaceId, revokedAt: null },
    data: { revokedAt, revokedByUserId: userId },
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
  return new DomainError("conflict",
    "This workspace already has a live API key; an owner must revoke it (DELETE /api/billing/claim) before a new one can be claimed.",
  );
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
