import { db } from "@/lib/db/client";

/** Keeps a nonce until `expiresAt`; it can be consumed once. */
export async function storeNonce(nonce: string, expiresAt: Date): Promise<void> {
  await db().siweNonce.create({ data: { nonce, expiresAt } });
}

/**
 * Consumes the nonce and returns when it expired or expires; null when it was never issued or is
 * already consumed. One DELETE … RETURNING decides: of two requests with one nonce, one gets it.
 */
export async function consumeNonce(nonce: string): Promise<Date | null> {
  const [row] = await db().$queryRaw<{ expires_at: Date }[]>`DELETE FROM siwe_nonces WHERE nonce = ${nonce} RETURNING expires_at`;
  return row?.expires_at ?? null;
}

export async function forgetExpiredNonces(now: Date): Promise<void> {
  await db().siweNonce.deleteMany({ where: { expiresAt: { lt: now } } });
}
