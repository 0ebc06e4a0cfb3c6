-- CreateEnum
CREATE TYPE "PaymentStatus" AS ENUM ('pending', 'settled', 'fulfilled', 'failed');

-- AlterTable
ALTER TABLE "workspaces" ADD COLUMN "payer_did" TEXT;

-- CreateTable
CREATE TABLE "payments" (
    "payment_key" TEXT NOT NULL,
    "credential_hash" TEXT NOT NULL,
    "protocol" TEXT NOT NULL,
    "payer_did" TEXT NOT NULL,
    "purchase" TEXT NOT NULL,
    "status" "PaymentStatus" NOT NULL,
    "claimed_at" TIMESTAMPTZ(3) NOT NULL,
    "reference" TEXT,
    "receipt_headers" JSONB,
    "link_id" TEXT,
    "response" JSONB,
    "api_key_sealed" TEXT,
    "failure" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "fulfilled_at" TIMESTAMPTZ(3),

    CONSTRAINT "payments_pkey" PRIMARY KEY ("payment_key")
);

-- CreateIndex
CREATE UNIQUE INDEX "workspaces_payer_did_key" ON "workspaces"("payer_did");

-- CreateIndex
CREATE UNIQUE INDEX "payments_credential_hash_key" ON "payments"("credential_hash");

-- CreateIndex
CREATE UNIQUE INDEX "payments_link_id_key" ON "payments"("link_id");

-- Sealed api keys are erased once their replay window has passed; this finds them.
CREATE INDEX "payments_api_key_sealed_idx" ON "payments"("fulfilled_at") WHERE "api_key_sealed" IS NOT NULL;

-- AddForeignKey
ALTER TABLE "payments" ADD CONSTRAINT "payments_link_id_fkey" FOREIGN KEY ("link_id") REFERENCES "links"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
