-- Custom domains: verification state, DNS check scheduling, and ownership decided by proof.

ALTER TABLE "domains"
    ADD COLUMN "verification_token" TEXT NOT NULL DEFAULT replace((gen_random_uuid())::text, '-'::text, ''::text),
    ADD COLUMN "hostname_status" TEXT NOT NULL DEFAULT 'pending',
    ADD COLUMN "cert_status" TEXT NOT NULL DEFAULT 'pending',
    ADD COLUMN "validation_errors" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    ADD COLUMN "checked_at" TIMESTAMPTZ(3),
    ADD COLUMN "next_check_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    ADD COLUMN "failed_checks" INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN "notice_sent_at" TIMESTAMPTZ(3),
    ADD COLUMN "tls_records" JSONB NOT NULL DEFAULT '[]';

-- Domains verified by hand before this migration are live; the first check fills in the rest.
UPDATE "domains" SET "hostname_status" = 'active' WHERE "verified_at" IS NOT NULL;

-- Several workspaces may claim a hostname while it is unverified (a squatter cannot block the
-- owner); one workspace claims it once; and only one claim can ever be verified: the first proof
-- wins, decided by this index even when two verifications commit at the same moment.
DROP INDEX "domains_hostname_key";
CREATE UNIQUE INDEX "domains_workspace_id_hostname_key" ON "domains"("workspace_id", "hostname");
CREATE UNIQUE INDEX "domains_verified_hostname_key" ON "domains"("hostname") WHERE "verified_at" IS NOT NULL;
CREATE INDEX "domains_next_check_at_idx" ON "domains"("next_check_at");

-- One instance at a time runs a background job (the domain checks): whoever holds the lease.
CREATE TABLE "job_leases" (
    "name" TEXT NOT NULL,
    "holder" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "job_leases_pkey" PRIMARY KEY ("name")
);
