-- The sealed copy of a new machine account's api_key (for resends within the replay window)
-- moves from the payment to the key itself, so the key's first authentication erases it in the
-- same statement that marks the key used; the payment keeps which key it minted.
ALTER TABLE "api_keys" ADD COLUMN "replay_sealed" TEXT;
ALTER TABLE "payments" ADD COLUMN "api_key_id" TEXT;

-- Sealed copies still held go to the key they seal: the machine account's live key, while unused.
UPDATE "payments" AS p SET "api_key_id" = k."id"
FROM "links" AS l JOIN "api_keys" AS k ON k."workspace_id" = l."workspace_id" AND k."revoked_at" IS NULL
WHERE p."api_key_sealed" IS NOT NULL AND l."id" = p."link_id";
UPDATE "api_keys" AS k SET "replay_sealed" = p."api_key_sealed"
FROM "payments" AS p
WHERE p."api_key_id" = k."id" AND p."api_key_sealed" IS NOT NULL AND k."last_used_at" IS NULL;

DROP INDEX "payments_api_key_sealed_idx";
ALTER TABLE "payments" DROP COLUMN "api_key_sealed";

-- Sealed copies are erased once their replay window has passed; this finds them.
CREATE INDEX "api_keys_replay_sealed_idx" ON "api_keys"("created_at") WHERE "replay_sealed" IS NOT NULL;

-- AddForeignKey
ALTER TABLE "payments" ADD CONSTRAINT "payments_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- CreateTable: single-use Sign-In-with-Ethereum nonces for recovering a machine account's key.
CREATE TABLE "siwe_nonces" (
    "nonce" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "siwe_nonces_pkey" PRIMARY KEY ("nonce")
);

-- CreateIndex
CREATE INDEX "siwe_nonces_expires_at_idx" ON "siwe_nonces"("expires_at");
