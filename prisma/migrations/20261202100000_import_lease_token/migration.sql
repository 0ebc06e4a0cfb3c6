-- The job holding an import names itself: renewing the lease and saving a batch's counts are
-- conditional on it, so a job that lost its lease can neither extend it nor count rows twice.
ALTER TABLE "imports" ADD COLUMN "lease_token" TEXT;

-- How many imports one person has unfinished, across their workspaces (the per-person limit).
CREATE INDEX "imports_user_id_status_idx" ON "imports"("user_id", "status");
